// mp4box ships its CommonJS types only behind package "exports", which this repo's
// moduleResolution ("node") does not read; point TypeScript at them by hand.
declare module 'mp4box' {
  export * from 'mp4box/dist/mp4box.all.cjs';
}
