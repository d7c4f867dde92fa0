// Runs a command-line tool (the operator CLI unless told) as a user would, in a child process, with
// the given settings.
import { spawn } from 'node:child_process';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `onStderr` hears the error stream as it is written (all of it so far), for a test that acts on what the command says. */
export function runCli(
  args: string[],
  env: Record<string, string | undefined>,
  script = 'tracker/admin/cli.ts',
  onStderr?: (soFar: string) => void,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'silent', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(stderr);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
