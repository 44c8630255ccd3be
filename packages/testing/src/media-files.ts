import { deflateSync } from 'node:zlib';

/**
 * Small, valid files of the kinds a bot is sent, made in the test so each is known byte for byte.
 */

/** A 1×1 PNG (67 bytes). */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * A PDF of one page per entry of `pages`, each showing its text in Helvetica. The structure is the
 * one ISO 32000-1 (PDF 1.7) §7.5 lays down — header, body of indirect objects, cross-reference
 * table with each object's byte offset, trailer naming the catalog, `startxref` — with the
 * catalog → page tree → page → content stream chain of §7.7 and Annex H.2 ("Minimal PDF file").
 * Text must be printable ASCII without parentheses or backslashes (it goes in a literal string).
 */
export function minimalPdf(pages: readonly string[]): Buffer {
  const fontId = 3 + pages.length * 2;
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`,
  ];
  pages.forEach((text, i) => {
    const content = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${fontId} 0 R >> >> /Contents ${4 + i * 2} 0 R >>`,
      `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    );
  });
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  return pdfFile(objects);
}

/**
 * A one-page PDF whose content stream is `inflated` bytes of spaces, Flate-compressed (§7.4.4):
 * about a thousandth of that on the wire, all of it in memory once read (a "zip bomb").
 */
export function inflatingPdf(inflated: number): Buffer {
  const stream = deflateSync(Buffer.alloc(inflated, 0x20), { level: 9 });
  return pdfFile([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>',
    Buffer.concat([
      Buffer.from(`<< /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
      stream,
      Buffer.from('\nendstream', 'latin1'),
    ]),
  ]);
}

/** Header, the objects numbered from 1, the cross-reference table of their byte offsets, trailer (§7.5). */
function pdfFile(objects: readonly (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  const push = (part: Buffer) => {
    parts.push(part);
    length += part.length;
  };
  objects.forEach((body, i) => {
    offsets.push(length);
    push(Buffer.from(`${i + 1} 0 obj\n`, 'latin1'));
    push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
    push(Buffer.from('\nendobj\n', 'latin1'));
  });
  const xref = length;
  let table = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) table += `${String(offset).padStart(10, '0')} 00000 n \n`;
  table += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  push(Buffer.from(table, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * A WAV file of `samples` 16-bit mono samples at 8 kHz (a ramp, so two lengths give two digests):
 * the canonical 44-byte RIFF/WAVE header (http://soundfile.sapp.org/doc/WaveFormat/), which
 * file-type sniffs as audio/wav.
 */
export function wavFile(samples: number): Buffer {
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(((i * 37) % 2000) - 1000, i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // PCM chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24); // sample rate
  header.writeUInt32LE(16_000, 28); // byte rate
  header.writeUInt16LE(2, 32); // block align
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
