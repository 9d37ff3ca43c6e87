// The `motu` command line: parses the arguments with commander (src/start/cli/program.ts holds every command), runs
// the chosen action and turns every failure into the JSON answer and exit code of src/start/cli/errors.ts.
// Exported for tests: main(argv, print) runs in-process and prints through `print`.
import { CommanderError, type Command } from 'commander';
import { EXIT, renderError, type CliErrorBody } from './cli/errors.js';
import { buildProgram, pathOf, type RunContext } from './cli/program.js';

/** A parse error of commander, with the command it happened in. */
class ParseFailure extends Error {
  constructor(readonly error: CommanderError, readonly command: Command) {
    super(error.message);
  }
}

function onEveryCommand(command: Command, fn: (c: Command) => void): void {
  fn(command);
  for (const sub of command.commands) onEveryCommand(sub, fn);
}

/** commander's "error: unknown command 'paymnts'\n(Did you mean payments?)" as JSON with the suggestion as the hint. */
function usageBody(error: CommanderError, command: Command): CliErrorBody {
  const [first = '', ...rest] = error.message.split('\n');
  const suggestion = /\(Did you mean (.+)\?\)/.exec(rest.join('\n'))?.[1];
  const name = ['motu', pathOf(command)].filter(Boolean).join(' ');
  const about = error.code === 'commander.unknownCommand' || error.code === 'commander.help' ? 'the commands' : 'the arguments and options';
  const hint = `${suggestion ? `Did you mean ${suggestion}? ` : ''}Run \`${name} --help\` to see ${about}.`;
  const message = error.code === 'commander.help'
    ? `${name} needs a command`
    : first.replace(/^error: /, '');
  return { code: 'USAGE_ERROR', message, hint };
}

export async function main(argv: string[], print: (line: string) => void = console.log): Promise<number> {
  const ctx: RunContext = { print, code: EXIT.ok };
  const program = buildProgram(ctx);
  onEveryCommand(program, (c) => c.exitOverride((error) => {
    // commander checks required options before unknown ones: a misspelt required option (--merchnt) is reported as
    // the unknown option it is, with its did-you-mean, rather than as the required one missing.
    const stray = error.code === 'commander.missingMandatoryOptionValue' ? c.args.find((a) => a.startsWith('-')) : undefined;
    if (stray) (c as unknown as { unknownOption(flag: string): never }).unknownOption(stray);
    throw new ParseFailure(error, c);
  }));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx.code;
  } catch (err) {
    if (err instanceof ParseFailure) {
      // --help and --version printed what was asked.
      // (`motu help keys` ends as 'commander.help' with exit code 0; a group without its command, with 1.)
      const { code, exitCode } = err.error;
      if (code === 'commander.helpDisplayed' || code === 'commander.version' || (code === 'commander.help' && exitCode === 0)) return EXIT.ok;
      const body = usageBody(err.error, err.command);
      // `motu help nosuch` ends as the top-level help shown for an error: name what was asked for.
      if (argv[0] === 'help' && argv[1] && code === 'commander.help') body.message = `unknown command '${argv.slice(1).join(' ')}'`;
      print(JSON.stringify(body, null, 2));
      return EXIT.usage;
    }
    const rendered = await renderError(err, ['motu', ctx.command].filter(Boolean).join(' '));
    print(JSON.stringify(rendered.body, null, 2));
    if (rendered.bug) process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return rendered.exitCode;
  }
}
