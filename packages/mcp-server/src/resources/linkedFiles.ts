/**
 * The downloads handed out as links (fileLinks.ts), as resources: listed, and read, the same on either revision.
 * Another resource of the server is one more small file beside this one.
 */
import { base64 } from '../calls/results';
import type { InvalidParams } from '../calls/errors';
import type { FileLinks } from './fileLinks';

/** The downloads handed out as links, each readable until it expires. */
export const listedResources = (links: FileLinks) =>
	links.list().map(({ uri, name, mimeType, size, expiresAt }) => ({
		uri,
		name,
		mimeType,
		size,
		description: `A downloaded file, readable until ${expiresAt}`,
	}));

/** resources/read of a link: its bytes, or why not (invalid params, as SEP-2164 settles it, not the older -32002). */
export function linkedFileContents(
	links: FileLinks,
	uri: string,
): { contents: Array<{ uri: string; mimeType: string; blob: string }> } | { notFound: InvalidParams } {
	const file = links.read(uri);
	if (!file)
		return {
			notFound: {
				message: `Resource not found: ${uri} is no file link of this server, or it has expired; download the file again`,
				data: { uri },
			},
		};
	return { contents: [{ uri, mimeType: file.mimeType, blob: base64(file.data) }] };
}
