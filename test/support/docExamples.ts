import { readFileSync } from 'node:fs';

/**
 * What a doc shows a command printing: in a fenced block, the lines after `$ <command>` up to
 * the next blank line or the end of the block. Tests run the command and compare, so the
 * example stays the command's own output.
 */
export function docExample(file: string, command: string): string {
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`\n$ ${command}\n`);
  if (start < 0) throw new Error(`${file} has no example of \`${command}\``);
  const lines: string[] = [];
  for (const line of text.slice(start + command.length + 4).split('\n')) {
    if (line === '' || line.startsWith('```')) break;
    lines.push(line);
  }
  return `${lines.join('\n')}\n`;
}
