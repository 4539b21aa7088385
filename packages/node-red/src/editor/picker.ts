/** The pick lists of the dialogs (chats, teammates, accounts, labels, ...): searchable pages from the admin endpoints. */
import type { Field } from './catalogue';

interface LookupPage {
	results: Array<{ name: string; value: string; description?: string }>;
	nextPageToken?: string;
}

/**
 * The searchable list under a field with a pick list (chat, teammate, account, file, ...): pages from
 * the admin endpoint (packages/node-red/src/admin.ts, packages/core/src/runtime/lookups.ts as n8n's lists; it uses the deployed config
 * node's stored token). A click puts the value into the field: a number for ids, added to the list
 * for list fields, else the text. Typing stays possible.
 */
export function togglePicker($row: JQuery, $input: JQuery, field: Field): void {
	const open = $row.find('.cm-picker');
	if (open.length) {
		open.remove();
		return;
	}
	const list = String(field.picker);
	const $picker = $('<div class="cm-picker"></div>');
	const $search = $('<input type="text" class="cm-picker-search" placeholder="Search">').appendTo($picker);
	const $list = $('<ol class="cm-picker-list"></ol>').appendTo($picker);
	const $message = $('<div class="cm-picker-message"></div>').appendTo($picker);
	const $more = $('<button type="button" class="red-ui-button red-ui-button-small cm-picker-more">More</button>').appendTo($picker);
	$row.find('.cm-field-help').after($picker);
	let nextPage: string | undefined;
	let request = 0;
	const choose = (value: string, name: string): void => {
		if (field.kind === 'integer') {
			$input.typedInput('type', 'num');
			$input.typedInput('value', value);
		} else if (field.kind === 'stringList' && $input.typedInput('type') === 'str') {
			const current = String($input.typedInput('value') || '')
				.split(',')
				.map((item) => item.trim())
				.filter(Boolean);
			if (!current.includes(value)) current.push(value);
			$input.typedInput('value', current.join(', '));
		} else {
			$input.typedInput('type', 'str');
			$input.typedInput('value', value);
		}
		$row.find('.cm-picker-chosen').remove();
		$row.find('.cm-field-help').after($('<div class="cm-picker-chosen"></div>').text(`Chosen: ${name}`));
		$picker.remove();
	};
	const load = (reset: boolean): void => {
		const config = String($('#node-input-config').val() || '');
		if (reset) {
			nextPage = undefined;
			$list.empty();
		}
		$more.hide();
		if (!config || config === '_ADD_') {
			$message.text('Choose a Service (configuration node) first');
			return;
		}
		const mine = ++request;
		$message.text('Loading…');
		$.getJSON(`chat-messaging/lookup/${list}`, { config, search: $search.val(), page: nextPage ?? '' })
			.done((answer: LookupPage) => {
				if (mine !== request) return; // a newer search is under way
				for (const result of answer.results) {
					const $item = $('<li class="cm-picker-item"></li>').attr('data-value', result.value);
					$item.text(result.name || result.value);
					if (result.description) $item.append($('<small></small>').text(` · ${result.description}`));
					$item.on('click', () => choose(result.value, result.name || result.value));
					$item.appendTo($list);
				}
				$message.text(answer.results.length || nextPage ? '' : 'Nothing matches');
				nextPage = answer.nextPageToken;
				$more.toggle(!!nextPage);
			})
			.fail((xhr) => {
				if (mine === request) $message.text(xhr.responseJSON?.message ?? `Could not read the list (HTTP ${xhr.status})`);
			});
	};
	let searchTimer: number | undefined;
	$search.on('input', () => {
		window.clearTimeout(searchTimer);
		searchTimer = window.setTimeout(() => load(true), 250);
	});
	$more.on('click', () => load(false));
	load(true);
	$search.focus();
}
