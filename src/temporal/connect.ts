import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.ts';
import { workflowClientInterceptors } from './client-interceptors.ts';

export async function connectTemporalClient(config: Pick<Config['temporal'], 'address' | 'namespace'>): Promise<Client> {
  const connection = await Connection.connect({ address: config.address });
  return new Client({ connection, namespace: config.namespace, interceptors: { workflow: workflowClientInterceptors() } });
}
