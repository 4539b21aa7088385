/**
 * The downloads handed out as links (fileLinks.ts), as resources: listed, and read, the same on either revision,
 * each caller's own links only.
 */
import { base64 } from '../calls/results';
import { INVALID_PARAMS, RequestRefusal } from '../calls/errors';
import type { OwnedLinks } from './fileLinks';

/** The downloads handed out as links, each readable until it expires. */
export const listedResources = (links: Pick<OwnedLinks, 'list'>) =>
	links.list().map(({ uri, name, mimeType, size, expiresAt }) => ({
		uri,
		name,
		mimeType,
		size,
		description: `A downloaded file, readable until ${expiresAt}`,
	}));

/** resources/read of a link: its bytes, or why not (invalid params, as SEP-2164 settles it, not the older -32002). */
export function linkedFileContents(
	links: Pick<OwnedLinks, 'read'>,
	uri: string,
): { contents: Array<{ uri: string; mimeType: string; blob: string }> } | RequestRefusal {
	const file = links.read(uri);
	if (!file)
		return new RequestRefusal(
			INVALID_PARAMS,
			`Resource not found: ${uri} is no file link of this server, or it has expired; download the file again`,
			{ uri },
		);
	return { contents: [{ uri, mimeType: file.mimeType, blob: base64(file.data) }] };
}
