import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { Relay } from 'nostr-tools/relay';
import type { Filter } from 'nostr-tools/filter';
import type { NostrEvent } from 'nostr-tools/core';
import { toolchainCacheDir } from '../../src/local/embedded/cache-dir.ts';
import { findFreePort, waitForPort } from '../../src/local/embedded/ports.ts';
import { runCommand } from '../../src/local/embedded/run-command.ts';
import { messageOf } from '../../src/common/errors/caught.ts';

// A real Nostr relay for a test file: nostr-relay (PyPI, pure Python, https://code.pobblelabs.org/fossil/nostr_relay),
// installed once into a virtual environment in the toolchain cache the way schemathesis is (test/infra/schemathesis.ts),
// each instance started on a port chosen now with its own configuration and SQLite file, behind a TLS proxy with the
// run's dev certificate so the connector speaks wss:// with certificate checks on, as in production. The proxy can
// also lose a relay's answers to events, as a connection that dies after the relay stored the event would.

const requirements = fileURLToPath(new URL('./nostr-relay-requirements.txt', import.meta.url));
const pinned = /^nostr[-_]relay==(.+)$/m.exec(readFileSync(requirements, 'utf8'));
if (!pinned) throw new Error(`${requirements} must pin nostr-relay (nostr-relay==<version>).`);
const relayVersion = pinned[1];

/** Installs nostr-relay once (a no-op when it is there) and returns the environment's python. Needs python3 and PyPI. */
export async function ensureNostrRelay(log: (message: string) => void): Promise<string> {
  const directory = join(toolchainCacheDir(), `nostr-relay-${relayVersion}`);
  const python = join(directory, 'bin', 'python');
  if (existsSync(python)) return python;
  log(`Installing nostr-relay ${relayVersion} from PyPI into ${directory} (first run only; about 15 s)...`);
  // Built aside and renamed, so a concurrent or interrupted install never leaves half of one.
  const staging = `${directory}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    await runCommand('python3', ['-m', 'venv', staging]);
    await runCommand(join(staging, 'bin', 'python'), ['-m', 'pip', 'install', '--no-input', '--requirement', requirements]);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`Could not install nostr-relay ${relayVersion} (python3 -m venv, then pip install):\n${messageOf(error)}`, { cause: error });
  }
  try {
    renameSync(staging, directory);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(python)) throw error;
  }
  return python;
}

const exitWithParent = [
  'import os, sys, threading',
  'threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()',
  'from nostr_relay.cli import main',
  'main()',
].join('\n');

export type NostrRelay = {
  /** The proxy's wss:// URL, what a connection names. */
  url: string;
  /** The relay's own ws:// URL on loopback, to read what it holds past the proxy. */
  directUrl: string;
  /** The next `count` events sent through the proxy reach the relay, which acts on them; their connections are cut before the answer. */
  dropEventAnswers(count: number): void;
  /** The events the relay holds that match `filter`, read with nostr-tools. */
  query(filter: Filter): Promise<NostrEvent[]>;
  close(): Promise<void>;
};

export type NostrRelayOptions = {
  /** The run's dev certificate (trusted by the test processes). */
  tls: { certPath: string; keyPath: string };
  /**
   * Takes only profile events (kind 0), so it refuses every note with `OK false` (`invalid: kind=1 not allowed`):
   * nostr-relay's `is_certain_kind` validator and its `valid_kinds` setting.
   */
  refuseNotes?: boolean;
};

export async function startNostrRelay(options: NostrRelayOptions): Promise<NostrRelay> {
  // The global setup installs it on a first run, in the background: wait for that rather than install it beside it.
  await import('../support/infrastructure.ts');
  const python = await ensureNostrRelay(() => {});
  const directory = mkdtempSync(join(tmpdir(), 'nostr-relay-'));
  const port = await findFreePort();
  const validators = ['nostr_relay.validators.is_signed', ...(options.refuseNotes ? ['nostr_relay.validators.is_certain_kind'] : [])];
  const config = {
    relay_name: options.refuseNotes ? 'refusing test relay' : 'test relay',
    storage: { 'sqlalchemy.url': `sqlite+aiosqlite:///${join(directory, 'relay.sqlite3')}`, validators },
    valid_kinds: [0],
    verification: { nip05_verification: 'disabled' },
    gunicorn: { bind: `127.0.0.1:${port}`, workers: 1, loglevel: 'warning' },
    authentication: { enabled: false },
    logging: { version: 1, root: { level: 'WARNING' } },
  };
  // JSON is YAML.
  const configPath = join(directory, 'config.yaml');
  writeFileSync(configPath, JSON.stringify(config));
  // Started through the module, not pip's `bin/nostr-relay`, whose first line names the staging directory. The relay
  // exits when its stdin closes, so a test process that dies without its afterAll leaves no relay behind.
  const child = spawn(python, ['-c', exitWithParent, '-c', configPath, 'serve', '--use-uvicorn'], { cwd: directory, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = once(child, 'exit');
  try {
    await Promise.race([
      waitForPort(port, 30_000),
      exited.then(([code]) => Promise.reject(new Error(`nostr-relay exited (${String(code)}) before it listened:\n${stderr}`))),
    ]);
  } catch (error) {
    await stop(child, exited);
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }

  const proxy = startProxy(port, options.tls);
  await once(proxy.server.listen(0, '127.0.0.1'), 'listening');
  const proxyPort = (proxy.server.address() as { port: number }).port;
  const directUrl = `ws://127.0.0.1:${port}`;

  return {
    url: `wss://localhost:${proxyPort}`,
    directUrl,
    dropEventAnswers: (count) => (proxy.drops.count = count),
    async query(filter) {
      const relay = await Relay.connect(directUrl);
      try {
        return await new Promise<NostrEvent[]>((resolveEvents) => {
          const events: NostrEvent[] = [];
          relay.subscribe([filter], { onevent: (event) => events.push(event), oneose: () => resolveEvents(events) });
        });
      } finally {
        relay.close();
      }
    },
    async close() {
      for (const socket of proxy.sockets) socket.destroy();
      await new Promise((resolveClosed) => proxy.server.close(resolveClosed));
      await stop(child, exited);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

async function stop(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(killer);
}

/**
 * A TLS server passing bytes both ways to the relay. To lose an answer it reads the first WebSocket frame the client
 * sends after the handshake (client frames are masked; compression is off): when it is an EVENT and drops are
 * pending, the frame still goes to the relay, and when the relay answers the client's connection is cut instead.
 */
function startProxy(relayPort: number, tls: { certPath: string; keyPath: string }) {
  const drops = { count: 0 };
  const sockets = new Set<Socket>();
  const server = createServer({ cert: readFileSync(tls.certPath), key: readFileSync(tls.keyPath) }, (client) => {
    const upstream = connect(relayPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    let request = Buffer.alloc(0);
    let inspected = false;
    let silenced = false;
    client.on('data', (chunk: Buffer) => {
      if (!inspected) {
        request = Buffer.concat([request, chunk]);
        const headersEnd = request.indexOf('\r\n\r\n');
        const frame = headersEnd >= 0 ? request.subarray(headersEnd + 4) : Buffer.alloc(0);
        const text = firstFrameText(frame);
        if (text !== undefined) {
          inspected = true;
          if (text.startsWith('["EVENT"') && drops.count > 0) {
            drops.count -= 1;
            silenced = true;
          }
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      // The relay's answer to the event: it has acted on it. The client hears nothing, its connection just ends.
      if (silenced) client.destroy();
      else client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  return { server, drops, sockets };
}

/** The start of the first masked frame's text (16 bytes are enough to tell an EVENT), or undefined until they came. */
function firstFrameText(frame: Buffer): string | undefined {
  if (frame.length < 2) return undefined;
  const shortLength = frame[1]! & 0x7f;
  const maskAt = shortLength === 126 ? 4 : shortLength === 127 ? 10 : 2;
  const payloadAt = maskAt + 4;
  const wanted = Math.min(16, shortLength < 126 ? shortLength : 16);
  if (frame.length < payloadAt + wanted) return undefined;
  const mask = frame.subarray(maskAt, payloadAt);
  return Buffer.from(frame.subarray(payloadAt, payloadAt + wanted).map((byte, index) => byte ^ mask[index % 4]!)).toString('latin1');
}
