# cmake -DINPUT=file.fatbin -DOUTPUT=file.inc -DNAME=symbol -P embed_fatbin.cmake
# Writes the bytes of INPUT as `alignas(8) static const unsigned char NAME[] = {...};`.
file(READ ${INPUT} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUTPUT} "// Generated from ${INPUT}: do not edit.\nalignas(8) static const unsigned char ${NAME}[] = {\n${bytes}};\n")
