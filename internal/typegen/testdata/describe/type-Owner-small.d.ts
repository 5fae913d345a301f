declare namespace PetstoreTypes {
  interface Owner { pets?: PetstoreTypes.Pet[]; address?: PetstoreTypes.Address; [key: string]: unknown; }
}
// Not shown: PetstoreTypes.Pet, PetstoreTypes.Address, PetstoreTypes.Tag
