/* A stand-in for the game's oo2core library, for tests only.
 *
 * It exports OodleLZ_Decompress with the signature of the real one (Oodle 2.6+, as SoulsFormats
 * and soulstruct call it: 14 arguments, returns the number of bytes written or 0 on failure).
 * The "compressed" stream it understands is a zstd frame, or, when the input does not start with
 * zstd's magic, a plain copy; real Kraken streams are not decoded by it, but their size check and
 * error path are: it returns 0 when the output size does not match, like the real library.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#if defined(_WIN32)
#define FAKE_EXPORT __declspec(dllexport)
#else
#define FAKE_EXPORT __attribute__((visibility("default")))
#endif

FAKE_EXPORT int64_t OodleLZ_Decompress(const void* comp, int64_t comp_size, void* raw, int64_t raw_size,
                                       int fuzz_safe, int check_crc, int verbosity, void* dec_buf_base,
                                       int64_t dec_buf_size, void* fp_callback, void* callback_user_data,
                                       void* decoder_memory, int64_t decoder_memory_size, int thread_phase) {
    (void)fuzz_safe; (void)check_crc; (void)verbosity; (void)dec_buf_base; (void)dec_buf_size;
    (void)fp_callback; (void)callback_user_data; (void)decoder_memory; (void)decoder_memory_size;
    (void)thread_phase;
    if (!comp || !raw || comp_size < 0 || raw_size < 0) return 0;
    const uint8_t* c = (const uint8_t*)comp;
    if (comp_size >= 4 && c[0] == 0x28 && c[1] == 0xB5 && c[2] == 0x2F && c[3] == 0xFD) {
        size_t r = ZSTD_decompress(raw, (size_t)raw_size, comp, (size_t)comp_size);
        if (ZSTD_isError(r) || (int64_t)r != raw_size) return 0;
        return (int64_t)r;
    }
    /* Anything else, a real Kraken stream included, is refused: this library cannot decode it. */
    return 0;
}
