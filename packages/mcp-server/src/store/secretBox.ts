/**
 * Encryption at rest of what the store must be able to read back (a grant's workspace token, a client's secret):
 * AES-256-GCM from node:crypto, a fresh 96-bit nonce per value, the record's kind bound in as associated data (a
 * value copied into another kind of record does not decrypt). Tokens the server only has to recognise (access and
 * refresh tokens, codes) are never encrypted: they are stored as hashes (`tokenHash`).
 *
 * Keys: CHAT_MESSAGING_MCP_SECRET_KEY (32 bytes, base64 or hex; several comma-separated to rotate: the first
 * encrypts, every one decrypts), else, beside a SQLite store, a key generated on first run into a file of mode 0600.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const KEY_BYTES = 32;
const NONCE_BYTES = 12;

/** A key's short id, stored with each value so that the right one of several keys decrypts it. */
const keyId = (key: Buffer) => createHash('sha256').update(key).digest('hex').slice(0, 8);

/** A key written as base64 or hex; undefined unless it is 32 bytes. */
function parseKey(text: string): Buffer | undefined {
	const trimmed = text.trim();
	const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
	return key.length === KEY_BYTES ? key : undefined;
}

export class SecretBox {
	private readonly keys: Map<string, Buffer>;
	private readonly current: { id: string; key: Buffer };

	constructor(keys: readonly Buffer[]) {
		const [first] = keys;
		if (!first || keys.some((key) => key.length !== KEY_BYTES)) throw new Error('SecretBox: keys of 32 bytes');
		this.keys = new Map(keys.map((key) => [keyId(key), key]));
		this.current = { id: keyId(first), key: first };
	}

	/** `<key id>.<nonce>.<ciphertext>.<tag>`, base64url; `context` (the record's kind) must be the same to open it. */
	seal(plaintext: string, context: string): string {
		const nonce = randomBytes(NONCE_BYTES);
		const cipher = createCipheriv('aes-256-gcm', this.current.key, nonce);
		cipher.setAAD(Buffer.from(context));
		const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
		return [this.current.id, nonce.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join(
			'.',
		);
	}

	/** The plaintext; throws when the value was sealed with a key not given any more, changed, or sealed for another context. */
	open(sealed: string, context: string): string {
		const [id, nonce, data, tag] = sealed.split('.');
		const key = this.keys.get(id ?? '');
		if (!key || nonce === undefined || data === undefined || tag === undefined)
			throw new Error('A stored secret was sealed with a key this server does not have (CHAT_MESSAGING_MCP_SECRET_KEY)');
		const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
		decipher.setAAD(Buffer.from(context));
		decipher.setAuthTag(Buffer.from(tag, 'base64url'));
		return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
	}
}

/** The keys CHAT_MESSAGING_MCP_SECRET_KEY names (first the one that encrypts); an error names the variable, not the value. */
export function keysFromText(text: string, variable: string): Buffer[] {
	const parts = text
		.split(',')
		.map((part) => part.trim())
		.filter(Boolean);
	const keys = parts.map(parseKey);
	if (!parts.length || keys.some((key) => key === undefined))
		throw new Error(`${variable}: each key must be 32 bytes in base64 or hex (openssl rand -base64 32)`);
	return keys as Buffer[];
}

/**
 * The key in `file`, made on first run (32 random bytes, base64, mode 0600 in a folder of mode 0700). A file that
 * holds anything else stops the server rather than being replaced: the grants sealed with it would be lost.
 */
export function keyFromFile(file: string): Buffer {
	if (!existsSync(file)) {
		mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
		writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
	}
	chmodSync(file, 0o600);
	const key = parseKey(readFileSync(file, 'utf8'));
	if (!key) throw new Error(`${file} does not hold a 32-byte key: restore it, or remove it and the store beside it`);
	return key;
}

/** The SHA-256 of a token, as the store keeps it: the token itself is never stored. */
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('base64url');
