import { describe, expect, it } from 'vitest';
import { createRejectionLog } from '../../src/ingress/rejectionLog.js';
import { createLogger } from '../../src/log/logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  return { lines, logger };
}

const fields = (reason: string) => ({ route: '/postbacks', channel: 'postback', reason });

describe('rejection log', () => {
  it('one source, thousands of rejections in a window: one line, then one summary', () => {
    const { lines, logger } = capture();
    let clock = 0;
    const log = createRejectionLog(logger, { windowMs: 60_000, now: () => clock });
    for (let i = 0; i < 6_500; i++) {
      log.record('203.0.113.9', fields(i % 2 ? 'unsupported_media_type' : 'body_too_large'));
    }
    expect(lines.map((line) => line.msg)).toEqual(['delivery rejected']);
    clock = 60_000;
    log.flush();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({
      source: '203.0.113.9',
      rejections: 6_499,
      reasons: { unsupported_media_type: 3_250, body_too_large: 3_249 },
    });
    log.close();
  });

  it('each source has its own window; a quiet window writes no summary', () => {
    const { lines, logger } = capture();
    let clock = 0;
    const log = createRejectionLog(logger, { windowMs: 1_000, now: () => clock });
    log.record('198.51.100.1', fields('not_a_json_object'));
    log.record('198.51.100.2', fields('not_a_json_object'));
    clock = 1_000;
    log.record('198.51.100.1', fields('not_a_json_object'));
    log.flush();
    expect(lines.map((line) => [line.msg, line.source])).toEqual([
      ['delivery rejected', '198.51.100.1'],
      ['delivery rejected', '198.51.100.2'],
      ['delivery rejected', '198.51.100.1'],
    ]);
    log.close();
  });

  it('bounds the sources it remembers', () => {
    const { lines, logger } = capture();
    const log = createRejectionLog(logger, { maxSources: 2, now: () => 0 });
    for (const source of ['a', 'b', 'c', 'a']) log.record(source, fields('x'));
    // 'a' was dropped to make room for 'c': its next rejection is logged again.
    expect(lines.filter((line) => line.msg === 'delivery rejected')).toHaveLength(4);
    log.close();
  });
});
