/**
 * HEIF files written box by box around a real coded image (one that heif-enc or sharp wrote), for the tests:
 * the boxes' writer, the reader of a single-image file's coded data, and a file that shows that image turned
 * by `irot` (heif-enc writes no irot). Grid images and the decompression bombs are built on these (heif-grid.ts). The
 * parsing here is the test's own, independent of the service's header reader.
 */

export const latin1 = (text: string) => Buffer.from(text, 'latin1');
export const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
export const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};
export const box = (type: string, ...body: Uint8Array[]) =>
  Buffer.concat([u32(8 + body.reduce((sum, part) => sum + part.length, 0)), latin1(type), ...body]);
export const fullBox = (type: string, version: number, flags: number, ...body: Uint8Array[]) =>
  box(type, Buffer.from([version, flags >> 16, (flags >> 8) & 0xff, flags & 0xff]), ...body);

interface Parsed {
  type: string;
  body: Buffer;
}

function boxes(bytes: Buffer): Parsed[] {
  const found: Parsed[] = [];
  for (let at = 0; at + 8 <= bytes.length;) {
    const size = bytes.readUInt32BE(at);
    found.push({ type: bytes.toString('latin1', at + 4, at + 8), body: bytes.subarray(at + 8, at + size) });
    at += size;
  }
  return found;
}
const child = (list: Parsed[], type: string): Parsed => {
  const found = list.find((candidate) => candidate.type === type);
  if (!found) throw new Error(`no ${type} box`);
  return found;
};

/** The coded image of a single-image HEIF written by heif-enc or sharp. */
export interface CodedImage {
  itemType: string;
  /** Its properties other than ispe, as boxes. */
  properties: Buffer[];
  /** Its size (ispe). */
  width: number;
  height: number;
  data: Buffer;
}

/** The coded image of a single-image HEIF written by heif-enc or sharp: its item type, properties, size and data. */
export function codedImage(file: Buffer): CodedImage {
  const meta = boxes(child(boxes(file), 'meta').body.subarray(4));
  const item = child(meta, 'pitm').body.readUInt16BE(4);
  const infe = boxes(child(meta, 'iinf').body.subarray(6)).find(({ body }) => body.readUInt16BE(4) === item)!;
  const iprp = boxes(child(meta, 'iprp').body);
  const properties = boxes(child(iprp, 'ipco').body);
  const ipma = child(iprp, 'ipma').body;
  const wide = (ipma[3]! & 1) === 1;
  const associated: number[] = [];
  for (let at = 8, entry = 0; entry < ipma.readUInt32BE(4); entry++) {
    const id = ipma.readUInt16BE(at);
    const count = ipma[at + 2]!;
    at += 3;
    for (let i = 0; i < count; i++, at += wide ? 2 : 1)
      if (id === item) associated.push(wide ? ipma.readUInt16BE(at) & 0x7fff : ipma[at]! & 0x7f);
  }
  // iloc version 0 or 1 with 4-byte offsets and lengths, as both encoders write it (sharp adds a base offset).
  const iloc = child(meta, 'iloc').body;
  const version = iloc[0]!;
  const baseSize = iloc[5]! >> 4;
  let at = 8;
  let data: Buffer | undefined;
  for (let entry = 0, count = iloc.readUInt16BE(6); entry < count; entry++) {
    const id = iloc.readUInt16BE(at);
    at += version === 1 ? 6 : 4;
    const base = baseSize === 4 ? iloc.readUInt32BE(at) : 0;
    at += baseSize;
    const extents = iloc.readUInt16BE(at);
    at += 2;
    const [offset, length] = [base + iloc.readUInt32BE(at), iloc.readUInt32BE(at + 4)];
    at += extents * 8;
    if (id === item) data = file.subarray(offset, offset + length);
  }
  if (!data) throw new Error('no data for the coded image');
  const own = associated.map((index) => properties[index - 1]!);
  const ispe = child(own, 'ispe').body;
  const kept = own.filter((property) => property.type !== 'ispe').map(({ type, body }) => box(type, body));
  return {
    itemType: infe.body.toString('latin1', 8, 12),
    properties: kept,
    width: ispe.readUInt32BE(4),
    height: ispe.readUInt32BE(8),
    data,
  };
}

/** The image of the single-image HEIF `file`, shown turned `quarterTurns` times anti-clockwise (an `irot` property). */
export function rotatedHeif(file: Buffer, quarterTurns: 1 | 2 | 3): Buffer {
  const image = codedImage(file);
  const ipco = [
    ...image.properties,
    fullBox('ispe', 0, 0, u32(image.width), u32(image.height)),
    box('irot', Buffer.from([quarterTurns])),
  ];
  // Every property is the item's, essential (0x80) but for ispe; irot, last, is applied after the others.
  const associations = ipco.map(
    (property, index) => (property.toString('latin1', 4, 8) === 'ispe' ? 0 : 0x80) | (index + 1),
  );
  const meta = (dataOffset: number) =>
    fullBox(
      'meta',
      0,
      0,
      fullBox('hdlr', 0, 0, u32(0), latin1('pict'), Buffer.alloc(13)),
      fullBox('pitm', 0, 0, u16(1)),
      fullBox('iinf', 0, 0, u16(1), fullBox('infe', 2, 0, u16(1), u16(0), latin1(image.itemType), Buffer.from([0]))),
      fullBox(
        'iloc',
        0,
        0,
        Buffer.from([0x44, 0x00]),
        u16(1),
        u16(1),
        u16(0),
        u16(1),
        u32(dataOffset),
        u32(image.data.length),
      ),
      box(
        'iprp',
        box('ipco', ...ipco),
        fullBox('ipma', 0, 0, u32(1), u16(1), Buffer.from([associations.length, ...associations])),
      ),
    );
  const brand = image.itemType === 'av01' ? 'avif' : 'heic';
  const ftyp = box('ftyp', latin1(brand), u32(0), latin1('mif1'), latin1('miaf'), latin1(brand));
  const dataOffset = ftyp.length + meta(0).length + 8; // past the mdat box header
  return Buffer.concat([ftyp, meta(dataOffset), box('mdat', image.data)]);
}
