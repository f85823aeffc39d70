import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import type { Config } from '../../config.ts';
import { messageOf } from '../../common/errors/caught.ts';
import { workflowClientInterceptors } from './client-interceptors.ts';
import { setCallTimeout } from './workflow-gateway.ts';

// The one place that connects to Temporal. Every process goes through here (the api's and the admin CLI's client,
// the worker's native connection and its client), so TLS, mutual TLS and API keys work the same for all of them.

export type TemporalSettings = Config['temporal'];

/** A client that connects now: a process that cannot reach Temporal stops at start-up, naming the reason. */
export async function connectTemporalClient(settings: TemporalSettings): Promise<Client> {
  return clientOn(await Connection.connect({ ...connectionOptions(settings), connectTimeout: settings.callTimeoutSeconds * 1000 }), settings);
}

/** A client that connects on its first call: for the admin CLI, whose commands mostly never call Temporal. */
export function lazyTemporalClient(settings: TemporalSettings): Client {
  return clientOn(Connection.lazy({ ...connectionOptions(settings), connectTimeout: settings.callTimeoutSeconds * 1000 }), settings);
}

/** The worker's connection (the Rust core's own), with the same settings as the clients'. */
export function connectWorkerConnection(settings: TemporalSettings): Promise<NativeConnection> {
  return NativeConnection.connect(connectionOptions(settings));
}

/** A client on the worker's own connection: what its activities start workflows with (see startsEagerly). */
export function clientOnWorkerConnection(connection: NativeConnection, settings: TemporalSettings): Client {
  return clientOn(connection, settings);
}

/**
 * Whether a start through this client may ask Temporal to start eagerly: to answer with the new run's first workflow
 * task, which the worker sharing the client's connection then runs, instead of queueing it for a poll. Only a
 * client on a worker's native connection can (the SDK refuses the option otherwise); the server may still decline,
 * and the run then starts as usual.
 */
export function startsEagerly(client: Client): boolean {
  return client.connection instanceof NativeConnection;
}

/** Whether a Temporal server answers its health check at `address` within a second (a dev server starting up). */
export async function isTemporalServing(address: string): Promise<boolean> {
  try {
    const connection = await Connection.connect({ address, connectTimeout: 1000 });
    try {
      await connection.healthService.check({});
      return true;
    } finally {
      await connection.close();
    }
  } catch {
    return false;
  }
}

function clientOn(connection: Connection | NativeConnection, settings: TemporalSettings): Client {
  const client = new Client({ connection, namespace: settings.namespace, interceptors: { workflow: workflowClientInterceptors() } });
  setCallTimeout(client, settings.callTimeoutSeconds * 1000);
  return client;
}

/**
 * Plain on the dev server; TLS, mutual TLS and/or an API key on a cluster or Temporal Cloud. Certificate files are
 * read here, once, so a wrong path stops start-up naming its variable.
 */
function connectionOptions(settings: TemporalSettings): { address: string; tls?: TLSConfig; apiKey?: string } {
  return {
    address: settings.address,
    ...(settings.tls ? { tls: tlsConfig(settings.tls) } : {}),
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  };
}

function tlsConfig(tls: NonNullable<TemporalSettings['tls']>): TLSConfig {
  return {
    ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
    ...(tls.caPath ? { serverRootCACertificate: readSetting('TEMPORAL_TLS_CA_PATH', tls.caPath) } : {}),
    ...(tls.certPath && tls.keyPath
      ? { clientCertPair: { crt: readSetting('TEMPORAL_TLS_CERT_PATH', tls.certPath), key: readSetting('TEMPORAL_TLS_KEY_PATH', tls.keyPath) } }
      : {}),
  };
}

function readSetting(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`${variable}: cannot read ${path} (${messageOf(error)})`, { cause: error });
  }
}
