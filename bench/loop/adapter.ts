import type { Script } from './script.ts';

/** How the benchmark drives one framework with the scripted model. */
export type Adapter = {
  /**
   * An agent with the `echo` tool wired to `script`, able to run up to `maxSteps` tool steps. `run` makes one
   * execution; the caller resets the script first and keeps the returned result referenced.
   */
  prepare(script: Script, maxSteps: number): Promise<{ run(): Promise<unknown> }>;
  /** A function that builds one agent with one tool; the tool and the model are built once and shared. */
  factory(script: Script): Promise<() => unknown>;
};

/** A framework in the comparison. */
export type Framework = {
  /** Used on the command line and in results. */
  id: string;
  label: string;
  /** The API driven. */
  api: string;
  /** The npm packages whose versions the results record. */
  packages: readonly string[];
  /** Imports the framework; only the child process that measures it does. */
  load(): Promise<Adapter>;
};
