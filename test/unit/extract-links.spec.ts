// Focused rules of findLinks / findVerificationLink / explain forms: which link a test should follow, and which never.
import { expect, test } from '@playwright/test';
import { explainLinks, explainVerificationLink, findLinks, findVerificationLink } from '../../src/extract/index.js';

const button = (href: string, label: string): string =>
  `<table><tr><td bgcolor="#2563eb" style="border-radius:6px"><a href="${href}" style="padding:12px 24px;color:#fff;display:inline-block">${label}</a></td></tr></table>`;

const footer = `
  <p><a href="https://acme.example/"><img src="https://acme.example/logo.png" alt="Acme logo"></a></p>
  <p><a href="https://acme.example/email/view/8f2a91c3">View this email in your browser</a></p>
  <p><a href="https://acme.example/unsubscribe?u=a8f3e21c9b7d6e5f4a3b">Unsubscribe</a> ·
     <a href="https://acme.example/preferences?u=a8f3e21c9b">Email preferences</a> ·
     <a href="https://acme.example/privacy">Privacy policy</a> · <a href="https://acme.example/terms">Terms</a> ·
     <a href="https://help.acme.example/">Help center</a> · <a href="mailto:support@acme.example">support@acme.example</a></p>
  <p><a href="https://twitter.com/acme"><img src="https://acme.example/tw.png" alt="Twitter"></a>
     <a href="https://apps.apple.com/app/acme/id123456789"><img src="https://acme.example/badge.png" alt="Download on the App Store"></a></p>`;

test.describe('findLinks', () => {
  test('lists every link once, in document order, with its kind', () => {
    const verify = 'https://acme.example/verify?token=Vt7q2LmZ9xR4tY1pK8vN3c';
    const html = `<p>Please confirm your email address.</p>${button(verify, 'Verify email')}
      <p>Or copy this link: <a href="${verify}">${verify}</a></p>${footer}`;
    const links = findLinks({ html });
    expect(links.map((l) => l.url)).toEqual([
      verify,
      'https://acme.example/',
      'https://acme.example/email/view/8f2a91c3',
      'https://acme.example/unsubscribe?u=a8f3e21c9b7d6e5f4a3b',
      'https://acme.example/preferences?u=a8f3e21c9b',
      'https://acme.example/privacy',
      'https://acme.example/terms',
      'https://help.acme.example/',
      'mailto:support@acme.example',
      'https://twitter.com/acme',
      'https://apps.apple.com/app/acme/id123456789',
    ]);
    expect(links.map((l) => l.kind)).toEqual([
      'verification', 'logo', 'view-in-browser', 'unsubscribe', 'preferences', 'privacy', 'terms', 'help', 'contact',
      'social', 'app-store',
    ]);
    expect(links[0]).toMatchObject({ text: 'Verify email', source: 'html', button: true, image: false, position: 0 });
    expect(links[1]).toMatchObject({ image: true, button: false });
  });

  test('reads URLs from the text part and labels them with the words before them', () => {
    const text = 'Confirm your account:\nhttps://acme.example/confirm/4d91a7c3e2b8f605\n\nUnsubscribe: https://acme.example/unsubscribe?u=1';
    const links = findLinks({ text });
    expect(links.map((l) => [l.url, l.source, l.kind])).toEqual([
      ['https://acme.example/confirm/4d91a7c3e2b8f605', 'text', 'verification'],
      ['https://acme.example/unsubscribe?u=1', 'text', 'unsubscribe'],
    ]);
    expect(links[0]?.text).toBe('Confirm your account:');
  });

  test('explainLinks gives the reasons for each kind', () => {
    const explained = explainLinks({ html: `<a href="https://x.example/privacy-policy">Read our policy</a>` });
    expect(explained[0]?.kind).toBe('privacy');
    expect(explained[0]?.reasons.join(' ')).toContain('privacy');
  });
});

test.describe('findVerificationLink', () => {
  test('picks the verify button and never the footer links', () => {
    const verify = 'https://acme.example/account/verify-email?token=Vt7q2LmZ9xR4tY1pK8vN3c';
    expect(findVerificationLink({ html: `<p>Welcome!</p>${button(verify, 'Verify my email')}${footer}` })).toBe(verify);
  });

  test('never picks unsubscribe, privacy, help, social, logo or view-in-browser links, even with tokens', () => {
    const html = `
      <a href="https://acme.example/unsubscribe?token=Zx8Lm2Qp9Rt4Vb7Nc1Kd">Unsubscribe</a>
      <a href="https://acme.example/privacy?token=Zx8Lm2Qp9Rt4Vb7Nc1Kd">Privacy</a>
      <a href="https://help.acme.example/verify?token=Zx8Lm2Qp9Rt4Vb7Nc1Kd">Help</a>
      <a href="https://www.facebook.com/acme">Facebook</a>
      <a href="https://acme.example/"><img src="logo.png" alt="logo"></a>
      <a href="https://acme.example/view-in-browser?token=Zx8Lm2Qp9Rt4Vb7Nc1Kd">View in browser</a>`;
    expect(findVerificationLink({ html })).toBeUndefined();
    const explained = explainVerificationLink({ html });
    expect(explained.candidates).toEqual([]);
    expect(explained.rejected.every((r) => r.reasons.some((why) => /never|not an http|home page|no one-time/.test(why)))).toBe(true);
  });

  test('unsubscribe stays out even when a tracker hides it, through the encoded destination', () => {
    const wrapped = `https://tracking.example.net/redirect?url=${encodeURIComponent('https://acme.example/unsubscribe?u=Zx8Lm2Qp9Rt4Vb7N')}`;
    const links = findLinks({ html: `<a href="${wrapped}">Click here</a>` });
    expect(links[0]?.kind).toBe('unsubscribe');
    expect(links[0]?.target).toBe('https://acme.example/unsubscribe?u=Zx8Lm2Qp9Rt4Vb7N');
    expect(findVerificationLink({ html: `<a href="${wrapped}">Click here</a>` })).toBeUndefined();
  });

  test('decodes HTML entities in hrefs', () => {
    const html = '<p>To activate your account, <a href="https://acme.example/activate?uid=5812&amp;key=Kh3v9Qp2Xz7L&#38;src=mail">click here</a>.</p>';
    expect(findVerificationLink({ html })).toBe('https://acme.example/activate?uid=5812&key=Kh3v9Qp2Xz7L&src=mail');
  });

  test('returns tracking-wrapped links as they appear, ranked by the destination they encode', () => {
    const target = 'https://app.acme.example/auth/magic?token=mlk_5b2e9c41f7a8d36e0c9b';
    const wrapped = `https://click.mailer.example/redirect?url=${encodeURIComponent(target)}&cid=77`;
    const html = `<p>Hi!</p><p><a href="${wrapped.replace(/&/g, '&amp;')}">Continue</a></p>${footer}`;
    expect(findVerificationLink({ html })).toBe(wrapped);
    const explained = explainVerificationLink({ html });
    expect(explained.candidates[0]?.link.target).toBe(target);
    expect(explained.candidates[0]?.reasons.join(' ')).toContain('magic');
  });

  test('reads destinations that trackers encode in a path segment, base64 or JSON', () => {
    const ses = 'https://abc.r.us-east-1.awstrack.me/L0/https:%2F%2Fapp.acme.example%2Fverify%3Ftoken=Ab12Cd34Ef56Gh78/1/0100018e-aaaa/xyz=';
    expect(findLinks({ html: `<a href="${ses}">Confirm</a>` })[0]?.target).toBe('https://app.acme.example/verify?token=Ab12Cd34Ef56Gh78');
    expect(findVerificationLink({ html: `<a href="${ses}">Confirm</a>` })).toBe(ses);
    const b64 = `https://links.example.net/r?u=${Buffer.from('https://app.acme.example/reset?token=Zy98Xw76Vu54Ts32').toString('base64')}`;
    expect(findLinks({ html: `<a href="${b64}">Open</a>` })[0]?.target).toBe('https://app.acme.example/reset?token=Zy98Xw76Vu54Ts32');
    const json = Buffer.from(JSON.stringify({ href: 'https://app.acme.example/unsubscribe?u=1', link_id: 7 })).toString('base64url');
    const cio = `https://e.customeriomail.com/e/c/${json}/abcdef`;
    expect(findLinks({ html: `<a href="${cio}">Click here</a>` })[0]).toMatchObject({ kind: 'unsubscribe', target: 'https://app.acme.example/unsubscribe?u=1' });
  });

  test('an opaque tracker link is chosen by its anchor text, and its "copy this URL" twin is the same link', () => {
    const a = 'https://u1.ct.sendgrid.net/ls/click?upn=u001.AbCdEf123-2BgHiJkL';
    const b = 'https://u1.ct.sendgrid.net/ls/click?upn=u001.ZyXwVu987-2BtSrQpO';
    const html = `${button(a, 'Confirm my email')}<p>Or paste: <a href="${b}">https://app.acme.example/confirm?token=tb_3f9a8c7e6d5b4a39</a></p>`;
    expect(findVerificationLink({ html })).toBe(a);
  });

  test('two different actions that are equally likely give no answer', () => {
    const html = `${button('https://acme.example/verify-email?token=Ab12Cd34Ef56Gh78', 'Verify your email')}
      ${button('https://acme.example/set-password?token=Zy98Xw76Vu54Ts32', 'Set your password')}`;
    expect(findVerificationLink({ html })).toBeUndefined();
    expect(explainVerificationLink({ html }).verdict).toContain('ambiguous');
  });

  test('a link whose anchor names something else is not chosen for its URL alone', () => {
    const html = `<p>Your appointment is confirmed.</p>${button('https://clinic.example/appointments/confirm?id=88120&amp;sig=Ab12Cd34Ef56Gh78', 'Add to calendar')}`;
    expect(findVerificationLink({ html })).toBeUndefined();
    const yes = `<p>Is this your new address?</p>${button('https://acme.example/email/confirm?token=Ab12Cd34Ef56Gh78', "Yes, that's me")}`;
    expect(findVerificationLink({ html: yes })).toBe('https://acme.example/email/confirm?token=Ab12Cd34Ef56Gh78');
  });

  test('click ids of a tracker that reveals its destination are not one-time tokens', () => {
    const wrapped = 'https://click.news.example/CL0/https:%2F%2Fnews.example%2F2025%2Fverify-a-viral-photo/1/0100019a-8c2e-000000/Zk8Qx2mP9vR4tW7zX1cB3nL5=';
    expect(findVerificationLink({ html: `<p>How to check a picture. <a href="${wrapped}">Verify it yourself</a></p>` })).toBeUndefined();
  });

  test('a plain sign-in page without a token is not a magic link', () => {
    expect(findVerificationLink({ html: '<p>Someone replied. <a href="https://forum.example/login">Log in</a> to answer.</p>' })).toBeUndefined();
    expect(findVerificationLink({ subject: 'Your account is confirmed', html: `<p>All set.</p>${button('https://acme.example/login?next=%2Fhome', 'Log in')}` })).toBeUndefined();
  });

  test('a reset button under "if this wasn\'t you" in a password-changed notice is not followed', () => {
    const html = `<p>Your password was changed.</p><p>If this wasn't you, reset your password right away.</p>${button('https://acme.example/forgot-password', 'Reset password')}`;
    expect(findVerificationLink({ subject: 'Your password was changed', html })).toBeUndefined();
  });

  test('"this wasn\'t me" and cancel links are never followed', () => {
    const html = `<p>New sign-in from Chrome.</p>
      <p><a href="https://acme.example/security/report?event=evt_8Kq2Lm9Xz4Rt7Vb1">This wasn't me</a></p>
      <p>If this wasn't you, <a href="https://acme.example/reset?token=Ab12Cd34Ef56Gh78">reset your password</a>.</p>
      <p><a href="https://acme.example/email-change/cancel?t=ec_47a1c9e2b85f3d06">Cancel the change</a></p>`;
    expect(findVerificationLink({ html })).toBeUndefined();
  });

  test('text-only magic link', () => {
    const link = 'https://halcyon.example/login/callback?code=hlc_9F2kQ8rT1wX6zP3m';
    const text = `Click the link below to log in:\n\n${link}\n\nManage notification settings: https://halcyon.example/settings/notifications`;
    expect(findVerificationLink({ text })).toBe(link);
  });

  test('anchor texts in many languages', () => {
    const cases = [
      'E-Mail-Adresse bestätigen', 'Vérifier mon adresse', 'Confirmar mi cuenta', 'Conferma il tuo indirizzo',
      'Bevestig je e-mailadres', 'Potwierdź adres e-mail', 'Подтвердить email', 'メールアドレスを確認する', '验证邮箱',
      '이메일 인증하기', 'Redefinir senha', 'Réinitialiser le mot de passe', 'Sign in to Acme', 'Activate account',
    ];
    for (const label of cases) {
      const href = 'https://acme.example/l/Qm9vaEt5ZkRrV2pmZ3Jh';
      expect(findVerificationLink({ html: button(href, label) }), label).toBe(href);
    }
  });

  test('explainVerificationLink shows ranked candidates with reasons', () => {
    const verify = 'https://acme.example/verify?token=Vt7q2LmZ9xR4tY1pK8vN3c';
    const explained = explainVerificationLink({ html: `${button(verify, 'Verify email')}${footer}` });
    expect(explained.answer).toBe(verify);
    expect(explained.candidates[0]).toMatchObject({ value: verify, eligible: true });
    expect(explained.candidates[0]?.reasons.join(' ')).toMatch(/anchor text .*Verify.*token.*button/);
    expect(explained.rejected.map((r) => r.value)).toContain('https://acme.example/unsubscribe?u=a8f3e21c9b7d6e5f4a3b');
    expect(explained.verdict).toContain('chosen');
  });

  test('nothing at all', () => {
    expect(findVerificationLink({})).toBeUndefined();
    expect(findLinks({ subject: 'hi', text: null, html: null })).toEqual([]);
  });
});

test('tokens ending in _ or - keep their last character, in HTML and in text', () => {
  for (const token of ['AZiyoMtZVcjkUsQt3r6I1ZaEV9T4Vwl_', 'Qx8kTzP0aLmN3vB7cD2eF9gH1jK4lM6-']) {
    const url = `https://app.example.com/verify?token=${token}`;
    const html = `<p>Confirm your address:</p><a href="${url}" style="background:#2563eb;padding:12px 20px;color:#fff">Verify email</a>`;
    expect(findVerificationLink({ subject: 'Verify your email', html })).toBe(url);
    expect(findVerificationLink({ subject: 'Verify your email', text: `Verify your email address: ${url}\n\nThanks` })).toBe(url);
  }
  // Sentence punctuation after a URL in text is still trimmed.
  expect(findVerificationLink({ subject: 'Verify your email', text: 'Verify your email: https://app.example.com/verify?token=abc123def456ghi789.' })).toBe(
    'https://app.example.com/verify?token=abc123def456ghi789',
  );
});
