import { writeFileSync } from 'node:fs';
import { heifGridBomb, bombTile } from './test/support/heif-bombs.ts';
import { decodingOf, ImageHeaderReader } from './functions/library/image-header/index.ts';
for (const [codec, cells, disguise] of [['hevc',8,'clap'],['hevc',12,'clap'],['hevc',8,'second-ispe'],['av1',8,'clap']] as const) {
  const b = heifGridBomb(bombTile(codec), { cells, disguise });
  const name = `/tmp/bombs/${codec}-${cells}-${disguise}.${codec==='av1'?'avif':'heic'}`;
  writeFileSync(name, b);
  const type = codec==='av1'?'image/avif':'image/heic';
  let header; try { const r = new ImageHeaderReader(type); header = r.add(b) ?? r.end(); } catch (e) { header = (e as Error).message; }
  let dec; try { dec = decodingOf(b, type); } catch (e) { dec = (e as Error).message; }
  console.log(name, b.length, JSON.stringify(header), JSON.stringify(dec));
}
