/**
 * A certificate made for one test run (openssl, EC P-256, a day), for the loopback https servers that stand for a
 * client's site: the client ID metadata documents a client publishes. Trusted by the test alone (the safe fetch's
 * `ca`), never by the system.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Key and certificate for `name` (and 127.0.0.1), written into `dir`. */
export function selfSigned(dir: string, name: string): { key: Buffer; cert: Buffer } {
	execFileSync(
		'openssl',
		[
			'req',
			'-x509',
			'-newkey',
			'ec',
			'-pkeyopt',
			'ec_paramgen_curve:prime256v1',
			'-nodes',
			'-days',
			'1',
			'-subj',
			`/CN=${name}`,
			'-addext',
			`subjectAltName=DNS:${name},IP:127.0.0.1`,
			'-keyout',
			join(dir, 'key.pem'),
			'-out',
			join(dir, 'cert.pem'),
		],
		{ stdio: 'ignore' },
	);
	return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
}
