import { createHash, timingSafeEqual } from 'node:crypto';

/** What an Authorization header presents to the admin UI. */
export type AdminCredential = 'right' | 'wrong' | 'none';

/**
 * The admin UI's token check: `Authorization: Bearer <ADMIN_TOKEN>`, or HTTP basic auth with the
 * token as the password (what a browser can send). Compared in constant time over sha256
 * digests (equal lengths whatever was presented). `none`: nothing presented, which a browser's
 * first request is, and which is not a guess.
 */
export function createAdminTokenCheck(token: string): (authorization?: string) => AdminCredential {
  const expected = digest(token);
  return (authorization) => {
    const presented = presentedToken(authorization);
    if (presented === null) return 'none';
    return timingSafeEqual(digest(presented), expected) ? 'right' : 'wrong';
  };
}

function presentedToken(header: string | undefined): string | null {
  if (!header) return null;
  // Stryker disable next-line StringLiteral: a scheme with no value presents no token either way
  const [scheme, value = ''] = header.split(' ', 2);
  // Stryker disable next-line OptionalChaining: split always gives a first part (types only)
  switch (scheme?.toLowerCase()) {
    case 'bearer':
      return value;
    case 'basic': {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      return decoded.slice(decoded.indexOf(':') + 1);
    }
    default:
      return null;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
