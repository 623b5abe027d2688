// Owns recipient address normalisation: lower-case, and `user+tag@domain` reaches `user@domain`.

/** The mailbox address an SMTP recipient is for, or null when it is not an address. */
export function mailboxAddressOf(recipient: string): string | null {
  const at = recipient.lastIndexOf('@');
  if (at <= 0 || at === recipient.length - 1) return null;
  const local = recipient.slice(0, at).toLowerCase();
  const domain = recipient.slice(at + 1).toLowerCase();
  const plus = local.indexOf('+');
  const base = plus === -1 ? local : local.slice(0, plus);
  return base ? `${base}@${domain}` : null;
}
