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
  const compare = createTokenComparison(token);
  return (authorization) => compare(presentedToken(authorization));
}

/** The same check for a token already taken out of its header (or a login form): null is none. */
export function createTokenComparison(
  token: string,
): (presented: string | null) => AdminCredential {
  const expected = digest(token);
  return (presented) => {
    if (presented === null) return 'none';
    return timingSafeEqual(digest(presented), expected) ? 'right' : 'wrong';
  };
}

/** The token in an `Authorization: Bearer` or Basic (token as the password) header. */
export function presentedToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const space = header.indexOf(' ');
  if (space === -1) return null;
  const value = header.slice(space + 1);
  switch (header.slice(0, space).toLowerCase()) {
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
