/**
 * The 44-digit barcode a 47-digit boleto line spells out (FEBRABAN layout: the line's field check
 * digits dropped, its general check digit and due factor moved after the bank and currency).
 */
export function barcodeOf(line: string): string {
  return (
    line.slice(0, 4) +
    line.slice(32, 33) +
    line.slice(33, 47) +
    line.slice(4, 9) +
    line.slice(10, 20) +
    line.slice(21, 31)
  );
}
