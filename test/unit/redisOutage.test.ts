import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { isRedisOutage } from '../../src/queue/redisOutage.js';
import { logLaneWorkerError } from '../../src/worker/laneWorker.js';

/** ioredis's ReplyError: the reply's text as its message. */
class ReplyError extends Error {
  override readonly name = 'ReplyError';
}

function socketError(code: string): Error {
  return Object.assign(new Error(`connect ${code} 127.0.0.1:6379`), { code });
}

describe('isRedisOutage', () => {
  it.each([
    'UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)',
    'LOADING Redis is loading the dataset in memory',
    "READONLY You can't write against a read only replica.",
    'CLUSTERDOWN The cluster is down',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no',
  ])('a failover or restart reply: %s', (message) => {
    expect(isRedisOutage(new ReplyError(message))).toBe(true);
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH'])(
    'a socket error %s',
    (code) => {
      expect(isRedisOutage(socketError(code))).toBe(true);
    },
  );

  it('a connection ioredis closed', () => {
    expect(isRedisOutage(new Error('Connection is closed.'))).toBe(true);
  });

  it.each([
    'Missing lock for job inbox-7. moveToFinished',
    'ERR Error running script (call to f_1): @user_script:1: wrong number of arguments',
    'NOSCRIPT No matching script. Please use EVAL.',
    'a message that mentions UNBLOCKED later on',
    'Connection is closed. And then something else',
  ])('anything else is an error: %s', (message) => {
    expect(isRedisOutage(new ReplyError(message))).toBe(false);
  });

  it('an unknown socket code, a thrown string and nothing at all are not outages', () => {
    expect(isRedisOutage(socketError('EACCES'))).toBe(false);
    expect(isRedisOutage('UNBLOCKED')).toBe(false);
    expect(isRedisOutage(undefined)).toBe(false);
  });
});

describe("a lane worker's error event", () => {
  function logged(error: Error): { level: number; msg: string }[] {
    const lines: { level: number; msg: string }[] = [];
    const logger = createLogger({
      level: 'info',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    logLaneWorkerError(logger, 'notifications')(error);
    return lines;
  }

  it('is a warning when Redis was away for a moment', () => {
    const error = new ReplyError('UNBLOCKED force unblock from blocking operation');
    expect(logged(error)).toMatchObject([
      { level: 40, msg: 'lane worker lost Redis for a moment; it retries' },
    ]);
  });

  it('is an error otherwise', () => {
    expect(logged(new ReplyError('NOSCRIPT No matching script.'))).toMatchObject([
      { level: 50, msg: 'lane worker error' },
    ]);
  });
});
