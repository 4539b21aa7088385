/**
 * Every composite has a tool description from the catalogue (what a model reads in n8n's tool variant and
 * the MCP tool list): what it does, what each Send To choice needs and in which format, its options with
 * their defaults, and what it returns.
 */
import { ALL_COMPOSITES, compositeToolDescription, SEND_AND_WAIT_FOR_REPLY_COMPOSITE, toolFieldDescription } from '../src';

describe.each(ALL_COMPOSITES.map((composite) => [composite.name, composite] as const))('%s', (_name, composite) => {
	const text = compositeToolDescription(composite);

	it('says what it does and what it returns', () => {
		expect(text.startsWith(composite.action)).toBe(true);
		expect(composite.returns.length).toBeGreaterThan(40);
		expect(text).toContain(composite.returns);
	});

	it('names every choice of where it sends (when it sends), and each required input with its format', () => {
		const { variants } = composite;
		if (variants) {
			expect(text).toContain(`${variants.name} says where the message goes (default ${variants.default})`);
			for (const variant of variants.options) expect(text).toContain(`${variant.value}, `);
		} else expect(text).not.toContain('where the message goes');
		for (const { field } of composite.fields.filter((entry) => entry.field.required))
			expect(text).toContain(`${field.name} (${toolFieldDescription(field).replace(/\.$/, '')})`);
	});

	it('names every option', () => {
		for (const option of composite.options) expect(text).toContain(`${option.name}: `);
	});
});

it('Send and Wait for Reply: the text is required whatever the choice; the time-outs are seconds, with their defaults', () => {
	const text = compositeToolDescription(SEND_AND_WAIT_FOR_REPLY_COMPOSITE);
	expect(text).toMatch(/Required: text \(The text to send; the reply to it is waited for\)\./);
	expect(text).toMatch(/replyTimeout: How long to wait for the reply \(in seconds, default \d+\)/);
	expect(text).toMatch(/phone \(Phone number of the recipient\. Format: International format/);
	expect(text).toMatch(/reply is null and timed_out is true/);
});
