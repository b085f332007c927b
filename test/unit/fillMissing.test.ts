import { describe, expect, it } from 'vitest';
import { fillMissing } from '../../src/mirror/fillMissing.js';

describe('fillMissing', () => {
  it('takes only the fields the mirror holds as null', () => {
    const update = fillMissing(
      { customerName: null, customerEmail: 'a@x.com', amountCents: 100 },
      { customerName: 'Ana', customerEmail: 'b@x.com', amountCents: 200 },
    );
    expect(update).toEqual({ customerName: 'Ana' });
  });

  it('never writes a null or an undefined over a missing field', () => {
    const update = fillMissing(
      { customerName: null, pixCode: null },
      { customerName: null, pixCode: undefined },
    );
    expect(update).toEqual({});
    expect(Object.keys(update)).toEqual([]);
  });

  it('fills falsy known values: zero, false and the empty string', () => {
    const update = fillMissing(
      { feeCents: null, tangible: null, title: null },
      { feeCents: 0, tangible: false, title: '' },
    );
    expect(update).toEqual({ feeCents: 0, tangible: false, title: '' });
  });

  it('leaves alone a field that is not a column of the row', () => {
    expect(fillMissing({ id: 1 }, { notAColumn: 'x' })).toEqual({});
  });

  it('does not overwrite a falsy value the mirror knows', () => {
    expect(fillMissing({ feeCents: 0, title: '' }, { feeCents: 5, title: 'x' })).toEqual({});
  });
});
