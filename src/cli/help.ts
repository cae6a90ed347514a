/**
 * Help texts, generated from the option table (options.ts): `minivm --help`,
 * `minivm help COMMAND` and `minivm COMMAND --help`; and the version.
 */

import { readFileSync } from 'node:fs';
import { COMMANDS, optionsOf, type CommandName } from './options.js';

export const EXIT_STATUSES = 'exit status: 0 ok, 64 usage, 65 compile error, 69 no GPU (library or adapter), 70 runtime error';

/** `minivm --help`: the commands and where their options are listed. */
export function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.synopsis.length), 'help [COMMAND]'.length) + 2;
  const lines = ['usage: minivm COMMAND [options]', 'commands:'];
  for (const c of COMMANDS) lines.push(`  ${c.synopsis.padEnd(width)}${c.summary}`);
  lines.push(`  ${'help [COMMAND]'.padEnd(width)}this text, or a command's options`);
  lines.push(
    'options: -h, --help (also after a command: minivm run --help), --version',
    EXIT_STATUSES,
    'every option is documented in docs/cli.md',
  );
  return lines.join('\n');
}

/** `minivm help COMMAND`: the command's synopsis and every option it takes. */
export function commandHelp(command: CommandName): string {
  const spec = COMMANDS.find((c) => c.name === command)!;
  const rows = optionsOf(command).map((o) => {
    const value = o.arg === undefined ? '' : o.optionalArg ? `[=${o.arg}]` : ` ${o.arg}`;
    return [`--${o.name}${value}`, o.help] as [string, string];
  });
  rows.push(['-h, --help', 'this text']);
  const width = Math.max(...rows.map((r) => r[0].length)) + 2;
  const lines = [`usage: minivm ${spec.synopsis}`, spec.summary];
  lines.push('options:', ...rows.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`));
  if (spec.programArgs) lines.push('arguments after -- go to the program (its args() built-in)');
  return lines.join('\n');
}

/** The package's version, from the package.json two folders above this file (src/cli or dist/cli). */
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** A usage error as printed: one line, then where the help is (exit 64). */
export function usageMessage(message: string, command?: string): string {
  return `minivm: ${message}\nsee 'minivm ${command ? `${command} ` : ''}--help'\n`;
}
