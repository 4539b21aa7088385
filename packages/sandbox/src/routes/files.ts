import { ApiError } from '../errors';
import type { FileRecord } from '../model';
import { RawReply, publicRoute, route, type PublicRequestContext, type RequestContext, type Route } from '../router';
import { fileFromUrlBody, fileListQuery, parseWith } from '../schemas';
import { pageOf } from '../pages';

export const FILE_PAGE_SIZE = 50;
const MB = 1024 * 1024;
/** Images, audio and video: 16 MB; documents (everything else): 100 MB. */
export const MEDIA_LIMIT = 16 * MB;
export const DOCUMENT_LIMIT = 100 * MB;
/** Loopback downloads for POST /files give up after this long. */
const FETCH_TIMEOUT_MS = 10_000;

const MIME_BY_EXTENSION: Record<string, string> = {
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	png: 'image/png',
	gif: 'image/gif',
	webp: 'image/webp',
	mp3: 'audio/mpeg',
	ogg: 'audio/ogg',
	oga: 'audio/ogg',
	opus: 'audio/ogg',
	m4a: 'audio/mp4',
	wav: 'audio/wav',
	mp4: 'video/mp4',
	'3gp': 'video/3gpp',
	mov: 'video/quicktime',
	pdf: 'application/pdf',
	txt: 'text/plain',
	csv: 'text/csv',
	json: 'application/json',
	zip: 'application/zip',
	doc: 'application/msword',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	xls: 'application/vnd.ms-excel',
	xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export function mimetypeFor(filename: string): string {
	const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
	return (ext && MIME_BY_EXTENSION[ext]) || 'application/octet-stream';
}

export function sizeLimitFor(mimetype: string): number {
	return /^(image|audio|video)\//.test(mimetype) ? MEDIA_LIMIT : DOCUMENT_LIMIT;
}

function isLoopback(url: URL): boolean {
	return ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
}

function storeFile(ctx: RequestContext, filename: string, mimetype: string, bytes: Buffer, field: string): FileRecord {
	const limit = sizeLimitFor(mimetype);
	if (bytes.length > limit) {
		throw ApiError.field([field], `File too large: ${mimetype} files may be at most ${limit / MB} MB`);
	}
	const file: FileRecord = {
		uid: ctx.ws.nextUid('file'),
		filename,
		size: bytes.length,
		mimetype,
		uploadedByEmail: ctx.ws.owner.email,
		uploadedAt: Date.now(),
		data: bytes.toString('base64'),
	};
	ctx.ws.data.files.push(file);
	return file;
}

/**
 * POST /files: the sandbox never reaches the internet. A loopback URL is really fetched (so tests can serve
 * bytes); any other URL is accepted as is and stored as a small placeholder whose name and type come from the URL.
 */
async function createFromUrl(ctx: RequestContext) {
	const body = parseWith(fileFromUrlBody, ctx.body);
	const url = new URL(body.download_url);
	const fromUrl = decodeURIComponent(url.pathname.split('/').pop() ?? '') || 'download';
	const filename = body.filename ?? fromUrl;
	let mimetype = body.content_type ?? mimetypeFor(filename);
	let bytes: Buffer;
	if (isLoopback(url)) {
		const { signal, done } = ctx.runtime.scheduler.controller(FETCH_TIMEOUT_MS);
		try {
			const response = await fetch(url, { signal });
			if (!response.ok) throw ApiError.field(['download_url'], `Download failed with HTTP ${response.status}`);
			bytes = Buffer.from(await response.arrayBuffer());
			const served = response.headers.get('content-type')?.split(';')[0]?.trim();
			if (!body.content_type && mimetype === 'application/octet-stream' && served) mimetype = served;
		} catch (error) {
			if (error instanceof ApiError) throw error;
			throw ApiError.field(['download_url'], `Download failed: ${error instanceof Error ? error.message : String(error)}`);
		} finally {
			done();
		}
	} else {
		bytes = Buffer.from(`Placeholder for ${body.download_url} (the sandbox does not download from the internet)\n`);
	}
	return ctx.runtime.renderer.file(ctx.ws, storeFile(ctx, filename, mimetype, bytes, 'download_url'), ctx.baseUrl);
}

/** POST /files_upload: multipart/form-data with `file` (required), `filename`, `content_type`. */
async function upload(ctx: RequestContext) {
	if (!ctx.contentType.toLowerCase().startsWith('multipart/form-data')) {
		throw ApiError.field([], 'Content-Type must be multipart/form-data');
	}
	let form: FormData;
	try {
		// Node's built-in undici parses multipart for us.
		form = await new Request('http://sandbox.local/upload', {
			method: 'POST',
			headers: { 'content-type': ctx.contentType },
			body: ctx.rawBody as unknown as BodyInit,
		}).formData();
	} catch {
		throw ApiError.field([], 'Malformed multipart body');
	}
	const file = form.get('file');
	if (file === null || typeof file === 'string') throw ApiError.field(['file'], 'file is required (a file part)');
	const filenameField = form.get('filename');
	const typeField = form.get('content_type');
	const filename = (typeof filenameField === 'string' && filenameField.trim()) || file.name || 'upload';
	let mimetype = typeof typeField === 'string' && typeField.trim() ? typeField.trim() : file.type.replace(/;[\s\S]*$/, '').trim();
	if (!mimetype || mimetype === 'application/octet-stream') mimetype = mimetypeFor(filename);
	const bytes = Buffer.from(await file.arrayBuffer());
	return ctx.runtime.renderer.file(ctx.ws, storeFile(ctx, filename, mimetype, bytes, 'file'), ctx.baseUrl);
}

function listFiles(ctx: RequestContext) {
	const q = parseWith(fileListQuery, ctx.query);
	const needle = q.filename?.toLowerCase() ?? '';
	const matching = ctx.ws.data.files
		.filter((f) => f.filename.toLowerCase().includes(needle))
		.slice()
		.reverse();
	const { items: slice, hasMorePages: hasMore } = pageOf(matching, q.page ?? 1, FILE_PAGE_SIZE, ctx.runtime.options.emptyList404);
	return {
		has_more_pages: hasMore,
		files: slice.map((f) => ctx.runtime.renderer.file(ctx.ws, f, ctx.baseUrl)),
	};
}

function fileOf(ctx: RequestContext): FileRecord {
	const uid = ctx.params.file_uid ?? '';
	return ctx.runtime.directory.owned(ctx.ws, (w) => w.data.files.find((f) => f.uid === uid), 'File');
}

function getFile(ctx: RequestContext) {
	return ctx.runtime.renderer.file(ctx.ws, fileOf(ctx), ctx.baseUrl);
}

function deleteFile(ctx: RequestContext) {
	const file = fileOf(ctx);
	ctx.ws.data.files = ctx.ws.data.files.filter((f) => f !== file);
	return { uid: file.uid, deleted: true };
}

/** The temporary download link: no bearer token, but a signature and an expiry instead. */
function download(ctx: PublicRequestContext) {
	const uid = ctx.params.file_uid ?? '';
	const expires = Number(ctx.query.expires);
	const signature = ctx.query.signature ?? '';
	if (!Number.isFinite(expires) || !ctx.runtime.renderer.signatureMatches(uid, expires, signature)) {
		throw ApiError.coded('permission_denied', 'Access denied: invalid download signature');
	}
	if (Date.now() > expires) throw ApiError.coded('permission_denied', 'Access denied: the download link has expired');
	for (const ws of ctx.runtime.directory.list()) {
		const file = ws.data.files.find((f) => f.uid === uid);
		if (file) {
			return new RawReply(
				200,
				{
					'content-type': file.mimetype,
					'content-disposition': `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`,
				},
				Buffer.from(file.data, 'base64'),
			);
		}
	}
	throw ApiError.notFound('File');
}

export const fileRoutes: Route[] = [
	route('GET', '/files', listFiles),
	route('POST', '/files', createFromUrl),
	route('POST', '/files_upload', upload, 'api', 'raw'),
	route('GET', '/files/:file_uid', getFile),
	route('DELETE', '/files/:file_uid', deleteFile),
	publicRoute('GET', '/_sandbox/download/:file_uid', download),
];
