/**
 * Removes the API keys from a text that will become an error message, in case the gateway (or
 * a proxy in front of it) ever echoes a request header back in a body.
 */
export function createRedactor(secrets: readonly string[]): (text: string) => string {
  const present = secrets.filter((secret) => secret.length > 0);
  return (text) => present.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}
