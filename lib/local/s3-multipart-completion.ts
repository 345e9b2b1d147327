/**
 * What S3 checks in a CompleteMultipartUpload, and the ETag it gives the object, for the local S3
 * (lib/local/s3-multipart.ts). s3rver's own Complete checks nothing; resumable uploads rely on these refusals:
 * a body naming no part (MalformedXML), parts out of order (InvalidPartOrder), a part not stored or with
 * another ETag (InvalidPart), a part but the last under 5 MiB (EntityTooSmall).
 */
import { createHash } from 'node:crypto';
import { S3Error } from './s3-error.ts';
import type { PartInfo } from './s3-multipart-uploads.ts';

const MIN_PART_SIZE = 5 * 1024 * 1024;
const unquoted = (etag: string) => etag.trim().replace(/^"|"$/g, '');

/** A part as the body names it. */
type NamedPart = Pick<PartInfo, 'partNumber' | 'etag'>;

/** The parts a CompleteMultipartUpload body names, in its order. */
export function namedParts(xml: string): NamedPart[] {
  const named = [...xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, part]) => ({
    partNumber: Number(/<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(part ?? '')?.[1]),
    etag: unquoted((/<ETag>([\s\S]*?)<\/ETag>/.exec(part ?? '')?.[1] ?? '').replaceAll('&quot;', '"')),
  }));
  if (named.length === 0)
    throw new S3Error(
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema.',
    );
  return named;
}

/** The stored parts that `named` makes the object, once S3's checks pass. */
export function checkedParts(named: NamedPart[], stored: PartInfo[]): PartInfo[] {
  const byNumber = new Map(stored.map((part) => [part.partNumber, part]));
  const parts = named.map((part, index) => {
    if (index > 0 && part.partNumber <= (named[index - 1]?.partNumber ?? 0))
      throw new S3Error(
        'InvalidPartOrder',
        'The list of parts was not in ascending order. The parts list must be specified in order by part number.',
      );
    const held = byNumber.get(part.partNumber);
    if (!held || held.etag !== part.etag)
      throw new S3Error(
        'InvalidPart',
        "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
      );
    return held;
  });
  if (parts.slice(0, -1).some((part) => part.size < MIN_PART_SIZE))
    throw new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed object size.');
  return parts;
}

/** S3's ETag of a multipart object: the MD5 of the parts' MD5s and `-<count>`, not the MD5 of its bytes. */
export function multipartEtag(parts: PartInfo[]): string {
  return `${createHash('md5')
    .update(Buffer.concat(parts.map((part) => Buffer.from(part.etag, 'hex'))))
    .digest('hex')}-${parts.length}`;
}
