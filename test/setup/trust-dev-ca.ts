import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { inject } from 'vitest';

// Every test process trusts the run's dev CA (test/infra/dev-certificates.ts) on top of the usual roots, so code
// under test keeps verifying certificates and still reaches our HTTPS fakes on loopback.
tls.setDefaultCACertificates([...new Set([...tls.getCACertificates('default'), readFileSync(inject('devCaCertPath'), 'utf8')])]);
