/**
 * Large downloads as links instead of bytes in a result: an agent's context holds a 3 MB file as 4 MB of
 * base64, so a download above a size is kept here for a while and handed out as a link that a client reads
 * (MCP's `resource_link`, then `resources/read`). The link is a random id and the file's name: it never holds
 * the token, the service's address or its short-lived download URL. Time comes from the injected clock; what has
 * expired is dropped as it is next touched (the core keeps no timers), and the bytes held are bounded. A link is its
 * owner's, the caller it was handed to: another caller neither lists nor reads it (a process may serve several
 * workspaces).
 */
import { randomBytes } from 'node:crypto';

import type { DownloadedFile, Timing } from '@chat-messaging/core';
import type { DownloadLinks, FileLink } from '../calls/results';

/** Files up to this size stay inline in a result; larger ones become links. */
export const INLINE_DOWNLOAD_LIMIT_BYTES = 1024 * 1024;
/** How long a link can be read. */
export const FILE_LINK_TTL_MS = 15 * 60 * 1000;
/** The most bytes all links hold together: the oldest go first when a new file would pass it. */
export const FILE_LINKS_MAX_BYTES = 64 * 1024 * 1024;
/** The scheme of the links' URIs. */
export const FILE_LINK_SCHEME = 'chat-messaging-file';

export interface FileLinksOptions {
	timing: Pick<Timing, 'now'>;
	/** Above this many bytes a download becomes a link (default INLINE_DOWNLOAD_LIMIT_BYTES). */
	inlineLimitBytes?: number;
	ttlMs?: number;
	maxBytes?: number;
}

interface Kept {
	file: DownloadedFile;
	owner: string;
	expiresAtMs: number;
}

/** The links as one caller sees them: what it keeps, and the links it was handed. */
export interface OwnedLinks extends DownloadLinks {
	/** The file behind a link, or undefined when there is none (never was, another owner's, expired, or evicted). */
	read(uri: string): DownloadedFile | undefined;
	/** The links that can still be read, oldest first. */
	list(): FileLink[];
}

/** The links of a process: every caller's, each kept with its owner. */
export class FileLinks {
	private readonly kept = new Map<string, Kept>();
	private bytes = 0;
	readonly inlineLimitBytes: number;
	private readonly ttlMs: number;
	private readonly maxBytes: number;

	constructor(private readonly options: FileLinksOptions) {
		this.inlineLimitBytes = options.inlineLimitBytes ?? INLINE_DOWNLOAD_LIMIT_BYTES;
		this.ttlMs = options.ttlMs ?? FILE_LINK_TTL_MS;
		this.maxBytes = options.maxBytes ?? FILE_LINKS_MAX_BYTES;
		for (const [name, value] of Object.entries({ inlineLimitBytes: this.inlineLimitBytes, ttlMs: this.ttlMs, maxBytes: this.maxBytes }))
			if (!Number.isInteger(value) || value < 0) throw new Error(`FileLinks: ${name} must be a whole number of 0 or more, got ${value}`);
	}

	/** Whether a download goes out as a link rather than inline. */
	linksFile(file: Pick<DownloadedFile, 'data'>): boolean {
		return file.data.length > this.inlineLimitBytes;
	}

	/** The links of one owner (calls/taskOwner.ts names them). */
	of(owner: string): OwnedLinks {
		return {
			linksFile: (file) => this.linksFile(file),
			keep: (file) => this.keep(owner, file),
			read: (uri) => this.read(owner, uri),
			list: () => this.list(owner),
		};
	}

	/** Keeps the file and returns its link; a file larger than all links may hold is refused (it would evict everything). */
	keep(owner: string, file: DownloadedFile): FileLink {
		const size = file.data.length;
		if (size > this.maxBytes)
			throw new Error(`The file is ${size} bytes, more than the ${this.maxBytes} bytes downloads may hold for reading`);
		this.dropExpired();
		for (const [uri, kept] of this.kept) {
			if (this.bytes + size <= this.maxBytes) break;
			this.drop(uri, kept);
		}
		const uri = `${FILE_LINK_SCHEME}://${randomBytes(18).toString('base64url')}/${encodeURIComponent(file.filename)}`;
		const expiresAtMs = this.options.timing.now() + this.ttlMs;
		this.kept.set(uri, { file, owner, expiresAtMs });
		this.bytes += size;
		return { uri, name: file.filename, mimeType: file.mimeType, size, expiresAt: new Date(expiresAtMs).toISOString() };
	}

	/** The file behind a link of this owner, or undefined when there is none (never was, another owner's, expired, or evicted). */
	read(owner: string, uri: string): DownloadedFile | undefined {
		this.dropExpired();
		const kept = this.kept.get(uri);
		return kept?.owner === owner ? kept.file : undefined;
	}

	/** The owner's links that can still be read, oldest first. */
	list(owner: string): FileLink[] {
		this.dropExpired();
		return [...this.kept]
			.filter(([, kept]) => kept.owner === owner)
			.map(([uri, { file, expiresAtMs }]) => ({
				uri,
				name: file.filename,
				mimeType: file.mimeType,
				size: file.data.length,
				expiresAt: new Date(expiresAtMs).toISOString(),
			}));
	}

	/** The bytes all links, of every owner, hold now. */
	get heldBytes(): number {
		return this.bytes;
	}

	private dropExpired(): void {
		const now = this.options.timing.now();
		for (const [uri, kept] of this.kept) if (kept.expiresAtMs <= now) this.drop(uri, kept);
	}

	private drop(uri: string, kept: Kept): void {
		this.kept.delete(uri);
		this.bytes -= kept.file.data.length;
	}
}
