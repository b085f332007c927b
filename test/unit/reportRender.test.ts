import { describe, expect, it } from 'vitest';
import {
  ReportValueError,
  integerFromPostgres,
  isoDuration,
  rowFromPostgres,
  type Column,
} from '../../src/reports/columns.js';
import { renderCsv, renderJson, renderTable } from '../../src/reports/render.js';

const COLUMNS: readonly Column[] = [
  { key: 'day', label: 'day', kind: 'day' },
  { key: 'status', label: 'status', kind: 'text' },
  { key: 'sale_count', label: 'sales', kind: 'integer' },
  { key: 'gross_cents', label: 'gross', kind: 'cents' },
];

const ROWS = [
  { day: '2026-03-10', status: 'PAGO', sale_count: 12, gross_cents: 123456 },
  { day: '2026-03-11', status: 'EM_PROCESSAMENTO', sale_count: 3, gross_cents: 5 },
  { day: null, status: 'a "quoted", odd\nvalue', sale_count: 0, gross_cents: null },
];

describe('integerFromPostgres', () => {
  it.each([
    ['123456', 123456],
    ['0', 0],
    ['-15', -15],
    [42, 42],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('%j → %i', (input, expected) => {
    expect(integerFromPostgres(input, 'c')).toBe(expected);
  });

  it.each(['9007199254740992', '1.5', '', ' 1', '1e3', 1.5, Number.NaN, true, {}])(
    'rejects %j',
    (input) => {
      expect(() => integerFromPostgres(input, 'gross_cents')).toThrow(ReportValueError);
      expect(() => integerFromPostgres(input, 'gross_cents')).toThrow(/column gross_cents/);
    },
  );
});

describe('rowFromPostgres', () => {
  it('converts bigint strings, times and durations, keeps nulls, drops extra columns', () => {
    const columns: Column[] = [
      { key: 'id', label: 'id', kind: 'integer' },
      { key: 'since', label: 'since', kind: 'timestamp' },
      { key: 'age', label: 'age', kind: 'duration' },
      { key: 'reserve', label: 'reserve', kind: 'cents' },
    ];
    const raw = {
      id: '1007',
      since: new Date('2026-03-12T10:00:00Z'),
      age: '273906',
      reserve: null,
      extra: 'x',
    };
    expect(rowFromPostgres(columns, raw)).toEqual({
      id: 1007,
      since: '2026-03-12T10:00:00.000Z',
      age: 'P3DT4H5M6S',
      reserve: null,
    });
  });
});

describe('isoDuration', () => {
  it.each([
    [0, 'PT0S'],
    [59, 'PT59S'],
    [3600, 'PT1H'],
    [86_400, 'P1D'],
    [90_061, 'P1DT1H1M1S'],
    [-60, '-PT1M'],
  ])('%i s → %s', (seconds, expected) => {
    expect(isoDuration(seconds)).toBe(expected);
  });
});

describe('renderTable', () => {
  it('aligns columns, numbers right, money in reais, null as -, one line per row', () => {
    expect(renderTable(COLUMNS, ROWS)).toBe(
      [
        'day         status                 sales        gross',
        '----------  ---------------------  -----  -----------',
        '2026-03-10  PAGO                      12  R$ 1.234,56',
        '2026-03-11  EM_PROCESSAMENTO           3      R$ 0,05',
        '-           a "quoted", odd value      0            -',
        '',
      ].join('\n'),
    );
  });

  it('prints the headers alone when there are no rows', () => {
    expect(renderTable(COLUMNS, [])).toBe('day  status  sales  gross\n---  ------  -----  -----\n');
  });
});

describe('renderCsv', () => {
  it('writes keys, integer centavos, empty nulls and quotes what needs it', () => {
    expect(renderCsv(COLUMNS, ROWS)).toBe(
      'day,status,sale_count,gross_cents\n' +
        '2026-03-10,PAGO,12,123456\n' +
        '2026-03-11,EM_PROCESSAMENTO,3,5\n' +
        ',"a ""quoted"", odd\nvalue",0,\n',
    );
    expect(renderCsv(COLUMNS, [])).toBe('day,status,sale_count,gross_cents\n');
  });

  it.each([
    [
      '=HYPERLINK("http://evil.example","click")',
      `"'=HYPERLINK(""http://evil.example"",""click"")"`,
    ],
    ['+55 11 9999', "'+55 11 9999"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', `"'\rcmd"`],
    ['Ana = Maria', 'Ana = Maria'],
  ])('neutralises a text cell that a spreadsheet would run as a formula: %j', (text, written) => {
    const csv = renderCsv(COLUMNS, [
      { day: null, status: text, sale_count: -3, gross_cents: -150 },
    ]);
    expect(csv.split('\n').slice(1).join('\n')).toBe(`,${written},-3,-150\n`);
  });
});

describe('renderJson', () => {
  it('writes numbers for centavos and [] for no rows', () => {
    expect(JSON.parse(renderJson(ROWS))).toEqual(ROWS);
    expect(renderJson([])).toBe('[]\n');
  });
});
