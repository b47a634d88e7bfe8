import { describe, expect, it } from 'vitest';
import { message } from '../../scripts/pgUpstream.ts';
import { MessageAssembler, ProtocolFramer } from '../../scripts/protocolFramer.ts';

// The pooler's framing (docs/connections.md): whatever way TCP cuts the stream, every message and every
// ReadyForQuery status is found, and nothing is lost, doubled or reordered.

const stream = Buffer.concat([
  message('P', Buffer.from('s1\0select 1\0\0\0')),
  message('B', Buffer.alloc(300, 7)),
  message('S', Buffer.alloc(0)),
  message('d', Buffer.alloc(70_000, 1)),
  message('Z', Buffer.from('T')),
  message('C', Buffer.from('SELECT 1\0')),
  message('Z', Buffer.from('I')),
]);

function cuts(buf: Buffer, every: number): Buffer[] {
  const out: Buffer[] = [];
  for (let o = 0; o < buf.length; o += every) out.push(buf.subarray(o, o + every));
  return out;
}

describe('protocol framing', () => {
  for (const every of [1, 2, 3, 4, 5, 6, 7, 64, 4096, 1 << 20]) {
    it(`finds every message in chunks of ${every} bytes`, () => {
      const whole: Buffer[] = [];
      const assembler = new MessageAssembler();
      for (const c of cuts(stream, every)) whole.push(...assembler.push(Buffer.from(c)));
      expect(whole.map((m) => String.fromCharCode(m[0])).join('')).toBe('PBSdZCZ');
      expect(Buffer.concat(whole).equals(stream)).toBe(true);

      const framer = new ProtocolFramer();
      const types: string[] = [];
      const passed: Buffer[] = [];
      const statuses: string[] = [];
      for (const c of cuts(stream, every)) {
        const before = framer.readies;
        passed.push(
          framer.scan(Buffer.from(c), (type, offset) => {
            types.push(String.fromCharCode(type));
            expect(offset).toBeGreaterThanOrEqual(0);
          }),
        );
        if (framer.readies > before) statuses.push(framer.status);
      }
      expect(types.join('')).toBe('PBSdZCZ');
      expect(Buffer.concat(passed).equals(stream)).toBe(true);
      expect(framer.readies).toBe(2);
      // The last status seen is the one that counts ('T' first, 'I' last: the pooler may release then).
      expect(statuses.at(-1)).toBe('I');
      if (every < 64) expect(statuses).toEqual(['T', 'I']);
      expect(framer.atBoundary()).toBe(true);
    });
  }

  it('refuses a length no message can have', () => {
    const bad = Buffer.from([0x51, 0, 0, 0, 2]);
    expect(() => new MessageAssembler().push(bad)).toThrow(/length/);
    expect(() => new ProtocolFramer().scan(bad)).toThrow(/length/);
  });
});
