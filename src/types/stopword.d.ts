/** The lists of the `stopword` package used here (it ships no type declarations). */
declare module "stopword" {
  export const eng: ReadonlyArray<string>
  export const jpn: ReadonlyArray<string>
}
