import { spawn, type SpawnOptions } from 'node:child_process';

export type RunOptions = SpawnOptions & {
  /** Called with every line the command prints, on stdout or stderr. */
  onLine?: (line: string) => void;
};

/** Runs a command to completion; rejects with the tail of its output when it exits non-zero. */
export function runCommand(command: string, args: string[], options: RunOptions = {}): Promise<string> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let pending = '';
    const collect = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (!options.onLine) return;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) options.onLine(line);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (pending && options.onLine) options.onLine(pending);
      if (code === 0) resolveRun(output);
      else {
        const tail = output.trim().split('\n').slice(-20).join('\n');
        reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit code ${code}`}):\n${tail}`));
      }
    });
  });
}
