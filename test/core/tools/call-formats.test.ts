import { describe, expect, it } from 'vitest';
import { LudusError } from '../../../core/errors.ts';
import { QWEN3_TOOL_CALL, TOOL_TAG } from '../../../core/tools/call-formats.ts';
import { toolUse } from '../../../core/tools/tool-use.ts';
import { calcTool, evaluate } from '../../../plugins/tools/calc.ts';

describe('the <tool> call format', () => {
  it('should read the last call of a segment, its text as `input`', () => {
    expect(TOOL_TAG.parse('so <tool name="calc"> 12*(3+4) </tool>')).toEqual({ kind: 'call', name: 'calc', args: { input: '12*(3+4)' } });
    expect(TOOL_TAG.parse('<tool name="a">x</tool> then <tool name="b">y</tool>')).toEqual({ kind: 'call', name: 'b', args: { input: 'y' } });
  });

  it.each([
    ['<tool calc>1</tool>', 'a call opens as <tool name="NAME">, not "<tool calc>"'],
    ["<tool name='calc'>1</tool>", `a call opens as <tool name="NAME">, not "<tool name='calc'>"`],
    ['1+1</tool>', 'a </tool> with no <tool name="…"> before it'],
  ])('should call %s malformed, saying why', (text, why) => {
    expect(TOOL_TAG.parse(text)).toEqual({ kind: 'malformed', why });
  });
});

describe('the Qwen3 call format', () => {
  const call = (json: string) => `<tool_call>\n${json}\n</tool_call>`;

  it('should read a JSON call, its arguments an object or a JSON string of one', () => {
    expect(QWEN3_TOOL_CALL.parse(call('{"name": "calc", "arguments": {"input": "2*3"}}'))).toEqual({ kind: 'call', name: 'calc', args: { input: '2*3' } });
    expect(QWEN3_TOOL_CALL.parse(call('{"name": "calc", "arguments": "{\\"input\\": \\"2*3\\"}"}'))).toEqual({ kind: 'call', name: 'calc', args: { input: '2*3' } });
    expect(QWEN3_TOOL_CALL.parse(call('{"name": "calc"}'))).toEqual({ kind: 'call', name: 'calc', args: {} });
  });

  it.each([
    ['{"name": "calc", ', 'the call is not JSON'],
    ['["calc"]', 'the call is not a JSON object'],
    ['{"arguments": {}}', 'the call has no "name" string'],
    ['{"name": "calc", "arguments": "not json"}', '"arguments" is a string that is not JSON'],
    ['{"name": "calc", "arguments": [1]}', '"arguments" is not a JSON object'],
  ])('should call %s malformed, saying why', (json, why) => {
    expect(QWEN3_TOOL_CALL.parse(call(json))).toEqual({ kind: 'malformed', why });
  });

  it("should list the tools as the chat template's system block does", () => {
    const block = QWEN3_TOOL_CALL.describe([calcTool]);
    expect(block).toContain('# Tools\n\nYou may call one or more functions to assist with the user query.');
    expect(block).toContain('{"type":"function","function":{"name":"calc","description":"evaluates + - * and parentheses on whole numbers, e.g. 12*(3+4)","parameters":{"type":"object","properties":{"input":{"type":"string"}},"required":["input"]}}}');
    expect(block).toContain('<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>');
  });
});

describe('toolUse', () => {
  it.each([
    [[{ ...calcTool, name: 'Calc' }], 'a name is lower case letters'],
    [[calcTool, calcTool], 'is declared twice'],
    [[{ ...calcTool, timeoutMs: 0 }], 'timeoutMs must be a positive whole number'],
  ])('should refuse a bad declaration with CONFIG_INVALID', (tools, message) => {
    expect(() => toolUse(tools)).toThrow(LudusError);
    expect(() => toolUse(tools)).toThrow(message);
  });
});

describe('the calculator', () => {
  it('should evaluate whole-number expressions exactly and refuse anything else', () => {
    expect(evaluate('12*(3+4)-5')).toBe(79n);
    expect(evaluate('-2*-3')).toBe(6n);
    expect(evaluate('123456789*987654321')).toBe(121932631112635269n);
    expect(() => evaluate('2/3')).toThrow('"/" is not expected there');
    expect(() => evaluate('a+1')).toThrow('"a" is not a number or one of + - * ( )');
    expect(() => evaluate('(1+2')).toThrow('a ( is not closed');
    expect(() => evaluate('1'.repeat(201))).toThrow('longer than 200 characters');
  });
});
