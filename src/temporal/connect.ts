import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.ts';
import { workflowClientInterceptors } from './client-interceptors.ts';
import { temporalConnectionOptions } from './connection-options.ts';

export async function connectTemporalClient(config: Pick<Config['temporal'], 'address' | 'namespace'> & Partial<Pick<Config['temporal'], 'tls' | 'apiKey'>>): Promise<Client> {
  const connection = await Connection.connect(temporalConnectionOptions({ tls: null, apiKey: undefined, ...config }));
  return new Client({ connection, namespace: config.namespace, interceptors: { workflow: workflowClientInterceptors() } });
}
