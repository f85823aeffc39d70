import type { TLSConfig } from '@temporalio/client';
import { readFileSync } from 'node:fs';
import type { Config } from '../config.ts';

export type TemporalConnectionSettings = Pick<Config['temporal'], 'address' | 'tls' | 'apiKey'>;

/**
 * How every process connects to Temporal (the api's client, the worker's native connection and client): plain on
 * the dev server; TLS, mutual TLS and/or an API key on a cluster or Temporal Cloud. Certificate files are read
 * here, once, so a wrong path stops start-up naming its variable.
 */
export function temporalConnectionOptions(settings: TemporalConnectionSettings): { address: string; tls?: TLSConfig; apiKey?: string } {
  return {
    address: settings.address,
    ...(settings.tls ? { tls: tlsConfig(settings.tls) } : {}),
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  };
}

function tlsConfig(tls: NonNullable<TemporalConnectionSettings['tls']>): TLSConfig {
  return {
    ...(tls.serverName ? { serverNameOverride: tls.serverName } : {}),
    ...(tls.caPath ? { serverRootCACertificate: readSetting('TEMPORAL_TLS_CA_PATH', tls.caPath) } : {}),
    ...(tls.certPath && tls.keyPath ? { clientCertPair: { crt: readSetting('TEMPORAL_TLS_CERT_PATH', tls.certPath), key: readSetting('TEMPORAL_TLS_KEY_PATH', tls.keyPath) } } : {}),
  };
}

function readSetting(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`${variable}: cannot read ${path} (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
}
