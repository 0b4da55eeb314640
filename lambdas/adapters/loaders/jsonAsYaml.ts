// Bundled in place of the `yaml` package in the Lambda functions (lib/functions.ts aliases it). The stack
// hands the functions their restart policy and signal profile as JSON (or a preset's name), so they need
// no YAML parser, and `yaml` was a third of every bundle (112 KB). YAML 1.2 is a superset of JSON: for the
// text the stack writes, this gives what `yaml` gives. The CLI, local mode and tests keep the real parser.

/** `yaml`'s `parse`, for JSON text. */
export function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new Error(
      `${(e as Error).message} (inside Lambda this setting is read as JSON: the stack writes it so; YAML is for the CLI and the stack's configuration file)`,
      { cause: e },
    );
  }
}
