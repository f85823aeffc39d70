// What a fake platform can tell of an uploaded video without decoding it: whether it is an MP4 (ISO base media file,
// https://www.loc.gov/preservation/digital/formats/fdd/fdd000155.shtml), whose first box is `ftyp`.

export function isMp4(bytes: Buffer): boolean {
  return bytes.length >= 12 && bytes.subarray(4, 8).toString('latin1') === 'ftyp';
}
