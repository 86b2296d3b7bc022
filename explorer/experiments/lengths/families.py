"""The two model families the length-asymmetry page compares, named once for every part of it."""

DECODER, ENCDEC = "decoder", "encoder_decoder"
FAMILIES = (DECODER, ENCDEC)
FAMILY_NAMES = {DECODER: "decoder-only", ENCDEC: "encoder-decoder"}
