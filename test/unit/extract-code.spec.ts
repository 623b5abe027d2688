// Focused rules of findCode / explainCode: what counts as a one-time code and what never does.
import { expect, test } from '@playwright/test';
import { explainCode, findCode } from '../../src/extract/index.js';

test.describe('findCode finds codes', () => {
  test('a code that is only in the subject', () => {
    expect(findCode({ subject: 'Your code is 482913', text: 'Use the code above to sign in.' })).toBe('482913');
    expect(findCode({ subject: '482913 is your Acme verification code' })).toBe('482913');
  });

  test('a code on the line after its label', () => {
    expect(findCode({ text: 'Your verification code:\n\n  582 114\n\nIt expires in 10 minutes.' })).toBe('582114');
  });

  test('letter-spaced codes, in text and in HTML', () => {
    expect(findCode({ text: 'Your security code is\n\n4 8 2 9 1 3\n' })).toBe('482913');
    const html = '<p>Enter this code:</p><div style="font-size:32px;letter-spacing:12px;font-weight:bold">9 0 4 1 1 7</div>';
    expect(findCode({ html })).toBe('904117');
  });

  test('a code split into boxes, one digit per table cell', () => {
    const cells = ['3', '8', '1', '0', '5', '6'].map((d) => `<td style="border:1px solid #ccc;font-size:28px">${d}</td>`).join('');
    expect(findCode({ html: `<p>Your verification code</p><table><tr>${cells}</tr></table>` })).toBe('381056');
  });

  test('a code split into spans without any code word, styled like a code', () => {
    const spans = ['7', '2', '0', '4'].map((d) => `<span style="font-family:monospace;font-size:30px">${d}</span>`).join('');
    expect(findCode({ html: `<div class="otp">${spans}</div>` })).toBe('7204');
  });

  test('spaces and hyphens inside a code are removed when the result is a plausible code', () => {
    expect(findCode({ text: 'Your code: ABC-123' })).toBe('ABC123');
    expect(findCode({ text: 'Confirmation code: 123-456' })).toBe('123456');
    expect(findCode({ text: 'Your code: 123 456' })).toBe('123456');
    expect(findCode({ text: 'G-482913 is your verification code.' })).toBe('482913');
  });

  test('the origin-bound format "@domain #code"', () => {
    expect(findCode({ text: '618203 is your Acme code.\n\n@acme.example #618203' })).toBe('618203');
  });

  test('a code labelled by a sentence earlier on the line', () => {
    const text = 'The One Time Password (OTP) for your transaction of INR 4,999.00 on 05-03-2025 is 847261.';
    expect(findCode({ text })).toBe('847261');
  });

  test('alphanumeric codes, shown prominently or labelled', () => {
    expect(findCode({ html: '<p>Enter this code to continue:</p><h1>X9F2KD</h1>' })).toBe('X9F2KD');
    expect(findCode({ text: 'Your one-time passcode is k7q4zp9m.' })).toBe('k7q4zp9m');
    expect(findCode({ text: 'Your login code: QWERTZ' })).toBe('QWERTZ');
  });

  test('full-width digits and many languages', () => {
    const cases: Array<[string, string]> = [
      ['Ihr Bestätigungscode lautet: 904117', '904117'],
      ['Votre code de vérification est : 318 406', '318406'],
      ['Tu código de verificación es 605912', '605912'],
      ['Seu código de verificação é 774120', '774120'],
      ['Il tuo codice di verifica è: 271828', '271828'],
      ['Je verificatiecode is 441720', '441720'],
      ['Twój kod weryfikacyjny: 903771', '903771'],
      ['Ваш код подтверждения: 519024', '519024'],
      ['認証コード：８３７２９１', '837291'],
      ['您的验证码是 662014，10分钟内有效。', '662014'],
      ['인증번호는 [385027] 입니다.', '385027'],
      ['Din verifieringskod är 552901', '552901'],
      ['Doğrulama kodunuz: 771204', '771204'],
    ];
    for (const [text, code] of cases) expect(findCode({ text }), text).toBe(code);
  });

  test('a code drawn as an image is read from its alt text; linked images are not', () => {
    const html = '<p>Use the verification code below to sign in.</p><p><img src="https://img.acme.example/otp.png" alt="559027"></p>';
    expect(findCode({ html })).toBe('559027');
    const linked = '<p>Use the verification code below to sign in.</p><p><a href="https://acme.example/"><img src="x.png" alt="559027"></a></p>';
    expect(findCode({ html: linked })).toBeUndefined();
  });

  test('groups of capital letters ("HXK-TQW") when labelled, never unlabelled', () => {
    expect(findCode({ text: 'Your confirmation code: HXK-TQW' })).toBe('HXKTQW');
    expect(findCode({ text: 'Your sign-in code:\n\nQPR-WXT\n\nIt expires soon.' })).toBe('QPRWXT');
    expect(findCode({ text: 'Shipping update\n\nNON-STOP delivery to your door.' })).toBeUndefined();
  });

  test('HTML only: the visible text is read, hidden preheaders are not', () => {
    const html = `<html><head><style>.preheader{display:none}</style><title>Code 111111</title></head><body>
      <span class="preheader">Your code is 111111</span>
      <div style="display:none">Your code is 222222</div>
      <p>Your code is <b>482913</b></p></body></html>`;
    expect(findCode({ html })).toBe('482913');
  });
});

test.describe('findCode never returns', () => {
  const never: Array<[string, string]> = [
    ['dates', 'Your code was sent on 12/05/2025. Code requested 2025-03-14.'],
    ['written dates and years', 'Your code request from March 14, 2025 has expired.'],
    ['times', 'Your code expires at 10:30 on 14.03.2025.'],
    ['prices', 'Your verification code order: total $1499, or 1,249.00 EUR, or 2499 €.'],
    ['phone numbers', 'Questions about your code? Call +1 (415) 555-0134 or 0800 123 4567.'],
    ['order numbers', 'Order #58213: enter your code at checkout. Order number: 771234.'],
    ['invoice and ticket numbers', 'Your code for invoice 88123 and ticket no. 44120 is on its way.'],
    ['durations', 'The code expires in 1440 minutes.'],
    ['postal addresses', 'Code desk, 500 Howard St, San Francisco, CA 94105'],
    ['copyright years', 'Enter the code in the app. © 2025 Acme'],
    ['promo codes', 'Use code SPRING25 at checkout for 25% off.'],
    ['meeting passcodes', 'Meeting ID: 845 2231 9907\nPasscode: 482913'],
    ['long numbers', 'Your code reference 1Z999AA10123456784 and account 12345678901.'],
    ['card receipts', 'Card: Visa ending in 4821\nAuth code: 012345\nApproval code: 778120'],
    ['booking references', 'Your reservation at Casa Azul is confirmed.\nConfirmation code: HMQ4X7ZP2K'],
    ['reference codes', 'Your support ticket was created.\nReference code: 99812-AB'],
  ];
  for (const [what, text] of never) {
    test(what, () => {
      expect(findCode({ text }), explainCode({ text }).verdict).toBeUndefined();
    });
  }

  test('gift card PINs, rating scales and dashboard statistics', () => {
    expect(findCode({ text: 'You received a $50 gift card!\nGift card code: 7KQ2-M4PX-9ZRT\nPIN: 4821' })).toBeUndefined();
    const scale = [1, 2, 3, 4, 5].map((n) => `<td><a href="https://survey.example/s/Ab12Cd34?r=${n}">${n}</a></td>`).join('');
    expect(findCode({ html: `<p>How did we do?</p><table><tr>${scale}</tr></table>` })).toBeUndefined();
    const stats = '<table><tr><td style="font-size:36px;font-weight:bold;letter-spacing:2px">1290</td></tr><tr><td>signups</td></tr></table>';
    expect(findCode({ html: stats })).toBeUndefined();
  });

  test('a number without any code word or code styling', () => {
    expect(findCode({ text: 'Thanks for joining 48210 other readers.' })).toBeUndefined();
    expect(findCode({ html: '<td style="font-size:40px;font-weight:bold">1500</td><td>miles driven</td>' })).toBeUndefined();
  });

  test('a code next to dates, prices, phones and order numbers is still found', () => {
    const text = [
      'Order #58213 placed on 12/05/2025 for $49.99.',
      'Your verification code is 482913.',
      'It expires at 10:30. Call +1 (415) 555-0134 with questions.',
    ].join('\n');
    expect(findCode({ text })).toBe('482913');
  });

  test('two different, equally good codes', () => {
    expect(findCode({ text: 'Your code is 482913.\nYour code is 771204.' })).toBeUndefined();
    expect(explainCode({ text: 'Your code is 482913.\nYour code is 771204.' }).verdict).toContain('ambiguous');
  });

  test('nothing at all', () => {
    expect(findCode({})).toBeUndefined();
    expect(findCode({ subject: null, text: null, html: null })).toBeUndefined();
  });
});

test.describe('explainCode', () => {
  test('ranks candidates with reasons and lists what it threw out', () => {
    const text = 'Order #58213 placed on 12/05/2025.\nYour verification code is 482913.';
    const explained = explainCode(text ? { text } : {});
    expect(explained.answer).toBe('482913');
    expect(explained.candidates[0]?.value).toBe('482913');
    expect(explained.candidates[0]?.reasons.join(' ')).toContain('labelled');
    expect(explained.candidates[0]?.sources).toEqual(['text']);
    const rejected = Object.fromEntries(explained.rejected.map((r) => [r.value, r.reasons.join(' ')]));
    expect(rejected['58213']).toContain('number sign');
    expect(rejected['12/05/2025']).toContain('date');
    expect(explained.verdict).toContain('chosen');
  });

  test('reports prominence from the HTML', () => {
    const explained = explainCode({ html: '<p>Your code</p><p style="font-size:30px;letter-spacing:6px">735190</p>' });
    expect(explained.answer).toBe('735190');
    expect(explained.candidates[0]?.reasons.join(' ')).toMatch(/letter-spacing/);
  });
});
