import type { components } from './openapi-types.ts';

/** Request and response shapes, generated from openapi.yaml (`npm run generate:types`). */
export type Schemas = components['schemas'];
