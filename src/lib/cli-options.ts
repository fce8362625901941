/**
 * A command's options on laurel's command line: `--name <value>` options and `--switch`es, each
 * known to the command; anything else (a misspelt option, a value missing, an argument left over)
 * is refused with the command's usage, rather than run as if it were not there.
 */
import { SettingsError } from './settings.js';

export interface OptionSpec {
  /** The command as its usage line writes it, e.g. `laurel snapshot [--full]`. */
  usage: string;
  /** Options that take a value. */
  values?: readonly string[];
  /** Options that take none. */
  switches?: readonly string[];
}

export interface Options {
  values: Map<string, string>;
  switches: Set<string>;
  /** `--help` or `-h` was given: show the usage, do nothing else. */
  help: boolean;
}

export function parseOptions(args: string[], spec: OptionSpec): Options {
  const options: Options = { values: new Map(), switches: new Set(), help: false };
  const refuse = (why: string) => new SettingsError(`${why}\nusage: ${spec.usage}`);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--help' || arg === '-h') {
      options.help = true;
    } else if (spec.values?.includes(arg)) {
      const value = args[i + 1];
      if (value === undefined || value.startsWith('--')) throw refuse(`${arg} needs a value`);
      if (options.values.has(arg)) throw refuse(`${arg} is given twice`);
      options.values.set(arg, value);
      i++;
    } else if (spec.switches?.includes(arg)) {
      options.switches.add(arg);
    } else {
      throw refuse(arg.startsWith('-') ? `unknown option "${arg}"` : `unexpected argument "${arg}"`);
    }
  }
  return options;
}
