// The part of libheif-js (Emscripten build of libheif with libde265) that heif-decoder.ts uses; it ships
// types for the raw bindings only.
declare module 'libheif-js/wasm-bundle.js' {
  interface HeifImage {
    is_primary(): boolean;
    get_width(): number;
    get_height(): number;
    has_alpha_channel(): boolean;
    display(
      target: { data: Uint8ClampedArray; width: number; height: number },
      done: (result: { data: Uint8ClampedArray } | null) => void,
    ): void;
    free(): void;
  }
  interface HeifDecoder {
    decoder: { delete(): void } | null;
    decode(bytes: Uint8Array): HeifImage[];
  }
  const libheif: { HeifDecoder: new () => HeifDecoder };
  export default libheif;
}
