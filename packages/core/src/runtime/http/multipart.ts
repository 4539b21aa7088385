/** multipart/form-data for uploads. */
import type { BinaryInput } from '../../catalogue/types';

/** Encodes multipart/form-data by hand: no FormData or Buffer, so it runs the same in n8n and Node-RED. */
export function encodeMultipart(parts: Record<string, string | BinaryInput>, boundary: string): Uint8Array {
	const encoder = new TextEncoder();
	const chunks: Uint8Array[] = [];
	const quote = (text: string) => text.replace(/["\r\n\\]/g, (c) => encodeURIComponent(c));
	for (const [name, value] of Object.entries(parts)) {
		if (typeof value === 'string') {
			chunks.push(encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`));
		} else {
			chunks.push(
				encoder.encode(
					`--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"; filename="${quote(value.filename)}"\r\n` +
						`Content-Type: ${value.mimeType || 'application/octet-stream'}\r\n\r\n`,
				),
			);
			chunks.push(value.data);
			chunks.push(encoder.encode('\r\n'));
		}
	}
	chunks.push(encoder.encode(`--${boundary}--\r\n`));
	const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
	let offset = 0;
	for (const chunk of chunks) {
		out.set(chunk, offset);
		offset += chunk.length;
	}
	return out;
}
