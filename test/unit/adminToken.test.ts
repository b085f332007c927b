import { describe, expect, it } from 'vitest';
import { createAdminTokenCheck } from '../../src/ingress/adminToken.js';

const TOKEN = 'admin-token-0123456789abcdef';
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

describe('createAdminTokenCheck', () => {
  // Made inside each test: a check that throws as it is made fails that test.
  const check = (authorization?: string) => createAdminTokenCheck(TOKEN)(authorization);

  it('accepts the token as a bearer token, whatever the scheme is spelt in', () => {
    expect(check(`Bearer ${TOKEN}`)).toBe('right');
    expect(check(`bearer ${TOKEN}`)).toBe('right');
    expect(check(`BEARER ${TOKEN}`)).toBe('right');
  });

  it("accepts the token as basic auth's password, whatever the user name", () => {
    expect(check(basic(`admin:${TOKEN}`))).toBe('right');
    expect(check(basic(`:${TOKEN}`))).toBe('right');
    expect(check(basic(`anyone:${TOKEN}`).replace('Basic', 'basic'))).toBe('right');
    // Only the first colon ends the user name: the password keeps the rest.
    expect(createAdminTokenCheck(`${TOKEN}:more`)(basic(`admin:${TOKEN}:more`))).toBe('right');
  });

  it('a token that differs in any way is wrong', () => {
    expect(check(`Bearer ${TOKEN.slice(0, -1)}`)).toBe('wrong');
    expect(check(`Bearer ${TOKEN}x`)).toBe('wrong');
    expect(check(`Bearer ${TOKEN.toUpperCase()}`)).toBe('wrong');
    expect(check(`Bearer  ${TOKEN}`)).toBe('wrong');
    expect(check(`Bearer ${TOKEN} `)).toBe('wrong');
    expect(check(`Bearer ${TOKEN} ${TOKEN}`)).toBe('wrong');
    expect(check('Bearer ')).toBe('wrong');
    expect(check(basic(`admin:${TOKEN}x`))).toBe('wrong');
    // The user name is not the password.
    expect(check(basic(`${TOKEN}:admin`))).toBe('wrong');
    expect(check(basic(`admin${TOKEN}`))).toBe('wrong');
    expect(check(`Basic ${TOKEN}`)).toBe('wrong');
  });

  it('no credential (nothing, or a scheme it does not take) is none, not a guess', () => {
    expect(check(undefined)).toBe('none');
    expect(check('')).toBe('none');
    expect(check(TOKEN)).toBe('none');
    expect(check(`Token ${TOKEN}`)).toBe('none');
    expect(check(`Digest ${TOKEN}`)).toBe('none');
    // A scheme alone, or glued to what follows, presents nothing.
    expect(check('Bearer')).toBe('none');
    expect(check('Bearerx')).toBe('none');
    expect(check(`Bearer${TOKEN}`)).toBe('none');
  });
});
