import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';
import { findFreePort } from './ports.ts';
import { runCommand, type RunOptions } from './run-command.ts';

// A private PostgreSQL cluster in a directory of ours, started from the machine's PostgreSQL binaries. Used by the
// dev stack (under DATA_DIR), the admin CLI (same cluster) and the test suite (a fresh one per run, removed afterwards).

export type PostgresCluster = {
  /** Connection URL of the `postgres` maintenance database. */
  adminUrl: string;
  port: number;
  /** The server's process id: it daemonizes, so it is no child of the process that started it. */
  pid: number;
  /** Whether this call started the server (and so stop() will stop it). */
  started: boolean;
  stop(): Promise<void>;
  urlOf(database: string): string;
  ensureDatabase(database: string): Promise<string>;
};

export type ClusterOptions = {
  directory: string;
  /** Trade durability for speed (tests): fsync and synchronous commit off. */
  ephemeral?: boolean;
  /** Listen on this port (a restart its clients must find again); a free one otherwise. */
  port?: number;
  log?: (message: string) => void;
};

const superuser = 'postgres';

export async function startPostgresCluster(options: ClusterOptions): Promise<PostgresCluster> {
  const directory = resolve(options.directory);
  const bin = findPostgresBinaries();
  const log = options.log ?? (() => {});

  if (!existsSync(join(directory, 'PG_VERSION'))) {
    log(`Creating a PostgreSQL cluster in ${directory}`);
    // Parents with the default mode, so the server user can pass through them; the cluster itself private.
    mkdirSync(dirname(directory), { recursive: true });
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    giveToServerUser(directory);
    await asServerUser(join(bin, 'initdb'), ['--pgdata', directory, '--username', superuser, '--auth', 'trust', '--encoding', 'UTF8', '--locale', 'C']);
  }

  const running = runningServer(directory);
  if (running) return clusterHandle(bin, directory, running, false);

  const port = options.port ?? (await findFreePort());
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    '-c max_connections=200',
    ...(options.ephemeral ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'] : []),
  ];
  // In a session of its own (detached), so a Ctrl-C meant for the dev stack does not reach the server before the
  // stack has stopped the processes that use it.
  await asServerUser(
    join(bin, 'pg_ctl'),
    ['start', '--wait', '--timeout=60', '--pgdata', directory, '--log', join(directory, 'server.log'), '-o', settings.join(' ')],
    { detached: true },
  );
  log(`PostgreSQL is listening on 127.0.0.1:${port}`);
  const started = runningServer(directory);
  if (!started) throw new Error(`PostgreSQL started in ${directory} but its postmaster.pid names no live server`);
  return clusterHandle(bin, directory, started, true);
}

function clusterHandle(bin: string, directory: string, { pid, port }: { pid: number; port: number }, started: boolean): PostgresCluster {
  const urlOf = (database: string) => `postgresql://${superuser}@127.0.0.1:${port}/${database}`;
  return {
    adminUrl: urlOf('postgres'),
    port,
    pid,
    started,
    urlOf,
    async stop() {
      if (!started) return;
      await asServerUser(join(bin, 'pg_ctl'), ['stop', '--wait', '--mode=fast', '--pgdata', directory]);
    },
    async ensureDatabase(database) {
      const client = new pg.Client({ connectionString: urlOf('postgres') });
      await client.connect();
      try {
        const existing = await client.query('select 1 from pg_database where datname = $1', [database]);
        if (existing.rowCount === 0) await client.query(`create database "${database.replaceAll('"', '""')}"`);
      } finally {
        await client.end();
      }
      return urlOf(database);
    },
  };
}

/** The server running on this directory, from postmaster.pid (pid on line 1, port on line 4), if it is alive. */
function runningServer(directory: string): { pid: number; port: number } | undefined {
  const pidFile = join(directory, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  const port = Number(portLine);
  return port ? { pid, port } : undefined;
}

/** PG_BIN_DIR, else the newest /usr/lib/postgresql/<version>/bin (Debian's layout). */
function findPostgresBinaries(): string {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((name) => /^\d+$/.test(name)) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) {
    throw new Error(
      'PostgreSQL server binaries were not found under /usr/lib/postgresql. Install them (apt-get install postgresql) ' +
        'or set PG_BIN_DIR, or point DATABASE_URL at an existing server.',
    );
  }
  return join(base, newest, 'bin');
}

// PostgreSQL refuses to run as root; when we are root, its files and processes belong to the `postgres` user.
const isRoot = process.getuid?.() === 0;

function giveToServerUser(directory: string) {
  if (!isRoot) return;
  const { uid, gid } = serverUserIds();
  chownSync(directory, uid, gid);
  const closed = closedAncestor(directory, uid, gid);
  if (closed) {
    // initdb would only say "Permission denied"; say which directory and what to do.
    throw new Error(
      `PostgreSQL runs as the \`${superuser}\` user, who cannot enter ${closed.path} (mode ${closed.mode}), so it cannot use ${directory}. ` +
        `Set DATA_DIR to a directory outside it (for example /var/tmp/content-service), or allow passing through with \`chmod o+x ${closed.path}\`.`,
    );
  }
}

/** The first directory above `directory` that the given user may not pass through (search permission), if any. */
function closedAncestor(directory: string, uid: number, gid: number): { path: string; mode: string } | undefined {
  const ancestors: string[] = [];
  for (let path = dirname(directory); ancestors.at(-1) !== path; path = dirname(path)) ancestors.push(path);
  for (const path of ancestors.reverse()) {
    const stat = statSync(path);
    const searchBit = stat.uid === uid ? 0o100 : stat.gid === gid ? 0o010 : 0o001;
    if ((stat.mode & searchBit) === 0) return { path, mode: (stat.mode & 0o777).toString(8).padStart(4, '0') };
  }
  return undefined;
}

function serverUserIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${superuser}:`));
  if (!line) throw new Error('Running as root needs a `postgres` system user to own the cluster (it comes with the postgresql package).');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function asServerUser(command: string, args: string[], options: RunOptions = {}): Promise<string> {
  return isRoot ? runCommand('runuser', ['-u', superuser, '--', command, ...args], options) : runCommand(command, args, options);
}
