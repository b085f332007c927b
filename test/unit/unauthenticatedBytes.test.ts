import { describe, expect, it } from 'vitest';
import { BODY_HEAD_BYTES, keptBody } from '../../src/inbox/keptBody.js';
import {
  createUnauthenticatedBytes,
  ROW_BYTES,
  type BytesDecision,
} from '../../src/ingress/unauthenticatedBytes.js';

const BODY = 48 * 1024;
const HEADERS = 300;

function setUp(bytesPerMinute: number, samplePerHour: number) {
  let clock = 1_000_000;
  const decisions: BytesDecision[] = [];
  const bytes = createUnauthenticatedBytes({
    bytesPerMinute,
    samplePerHour,
    now: () => clock,
    onDecision: (decision) => decisions.push(decision),
  });
  const kept = () => decisions.reduce((sum, decision) => sum + decision.keptBytes, 0);
  return {
    bytes,
    decisions,
    kept,
    advance(ms: number) {
      clock += ms;
    },
  };
}

describe('the unauthenticated byte budget', () => {
  it('keeps a few whole bodies per source per hour, then heads; an IPv6 /64 is one source', () => {
    const { bytes, advance } = setUp(100 * 1024 * 1024, 3);
    const from = (source: string) =>
      Array.from({ length: 5 }, () => bytes.forRejection(source, BODY, HEADERS));
    expect(from('203.0.113.7')).toEqual(['whole', 'whole', 'whole', 'head', 'head']);
    expect(from('203.0.113.8')).toEqual(['whole', 'whole', 'whole', 'head', 'head']);
    expect([
      bytes.forRejection('2001:db8:1:2::1', BODY, HEADERS),
      bytes.forRejection('2001:db8:1:2::2', BODY, HEADERS),
      bytes.forRejection('2001:db8:1:2:ffff::3', BODY, HEADERS),
      bytes.forRejection('2001:db8:1:2::4', BODY, HEADERS),
      bytes.forRejection('2001:db8:1:3::1', BODY, HEADERS),
    ]).toEqual(['whole', 'whole', 'whole', 'head', 'whole']);
    advance(3_600_001);
    expect(bytes.forRejection('203.0.113.7', BODY, HEADERS)).toBe('whole');
  });

  it('keeps no whole body with a sample of 0, and spends no sample on a body within the head', () => {
    const none = setUp(100 * 1024 * 1024, 0);
    expect(none.bytes.forRejection('198.51.100.1', BODY, HEADERS)).toBe('head');
    const small = setUp(100 * 1024 * 1024, 1);
    for (let i = 0; i < 5; i += 1) {
      expect(small.bytes.forRejection('198.51.100.2', BODY_HEAD_BYTES, HEADERS)).toBe('head');
    }
    expect(small.bytes.forRejection('198.51.100.2', BODY, HEADERS)).toBe('whole');
  });

  it('keeps at most the budget a minute, however many sources, then nothing; refills with time', () => {
    const budget = 256 * 1024;
    const { bytes, decisions, kept, advance } = setUp(budget, 3);
    const answers = Array.from({ length: 2000 }, (_, i) =>
      bytes.forRejection(`10.${(i >> 8) & 255}.${i & 255}.1`, BODY, HEADERS),
    );
    expect(kept()).toBeLessThanOrEqual(budget);
    // What fits: a few whole samples, then heads, then nothing at all.
    expect(answers.filter((answer) => answer === 'whole').length).toBeLessThanOrEqual(
      budget / BODY,
    );
    expect(answers.at(-1)).toBe('nothing');
    expect(answers.filter((answer) => answer === 'nothing').length).toBeGreaterThan(1500);
    const skipped = decisions.filter((decision) => decision.skippedRow);
    expect(skipped.every((decision) => decision.skippedBytes === BODY + HEADERS + ROW_BYTES)).toBe(
      true,
    );
    const heads = decisions.filter((d) => !d.skippedRow && d.skippedBytes > 0);
    expect(heads.every((d) => d.keptBytes === BODY_HEAD_BYTES + HEADERS + ROW_BYTES)).toBe(true);

    const before = kept();
    advance(30_000); // half a minute: half the budget back
    while (bytes.forRejection('192.0.2.1', 10, HEADERS) !== 'nothing');
    expect(kept() - before).toBeGreaterThan(budget / 2 - 2 * (HEADERS + ROW_BYTES));
    // What the flood left unspent was less than one head row.
    expect(kept() - before).toBeLessThanOrEqual(budget / 2 + BODY_HEAD_BYTES + HEADERS + ROW_BYTES);
  });

  it('keeps every quarantined webhook: whole while the budget lasts, then its head', () => {
    const budget = 200 * 1024;
    const { bytes, decisions } = setUp(budget, 3);
    const answers = Array.from({ length: 20 }, () => bytes.forQuarantine(BODY, HEADERS));
    expect(answers.slice(0, 4)).toEqual(['whole', 'whole', 'whole', 'whole']);
    expect(answers.slice(4)).toEqual(Array(16).fill('head'));
    expect(decisions.every((decision) => !decision.skippedRow)).toBe(true);
    // The heads spent what was left: rejections now keep nothing.
    expect(bytes.forRejection('192.0.2.9', BODY, HEADERS)).toBe('nothing');
  });
});

describe('keptBody', () => {
  it('keeps the whole body, or its first 1 KiB', () => {
    const body = Buffer.alloc(5000, 7);
    expect(keptBody(body, 'whole')).toEqual({ bytes: body, truncated: false });
    const head = keptBody(body, 'head');
    expect(head.truncated).toBe(true);
    expect(head.bytes.equals(body.subarray(0, BODY_HEAD_BYTES))).toBe(true);
    const small = Buffer.from('{"a":1}');
    expect(keptBody(small, 'head')).toEqual({ bytes: small, truncated: false });
  });
});
