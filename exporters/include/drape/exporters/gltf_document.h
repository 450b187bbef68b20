// drape: the one glTF document builder. A model, its clips and (next) baked cloth motion are
// added to one in-memory document and written once, as .glb or as .gltf + .bin; nothing is
// serialised and read back in between.
//
//   GltfDocument doc;
//   auto nodes = add_model(doc, model, options, &model_report);   // gltf.h
//   reparent_to_skeleton(doc, nodes, havok_skeleton, &bone_report); // shared bones as Havok has them
//   add_clips(doc, havok_skeleton, clips, clip_options, &clip_report); // animation_glb.h
//   auto glb = doc.glb();
//
// Extension point for baked motion (the cloth baker): add_accessor() for the data,
// add_morph_targets() on a mesh written by add_model (found by its glTF name through
// mesh_by_name()), and animations whose channels target a mesh node's "weights" or any node's
// TRS, appended to json()["animations"].
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "drape/io/error.h"
#include "drape/io/reader.h"

namespace drape::exporters {

// glTF constants used by the builders.
inline constexpr int k_gltf_float = 5126;
inline constexpr int k_gltf_unsigned_int = 5125;
inline constexpr int k_gltf_unsigned_short = 5123;
inline constexpr int k_gltf_unsigned_byte = 5121;
inline constexpr int k_gltf_array_buffer = 34962;
inline constexpr int k_gltf_element_array_buffer = 34963;

// A GLB split into its chunks (what from_glb starts from; tests read outputs with it).
struct Glb {
    std::string json;
    std::vector<uint8_t> bin;  // empty when the file has no BIN chunk
};
// Reads the 12-byte header and the JSON and BIN chunks (checked; other chunks are skipped).
Result<Glb> read_glb(Bytes data);
// Writes a GLB: JSON padded with spaces, BIN with zeros, both to 4 bytes.
std::vector<uint8_t> write_glb(std::string json_text, std::span<const uint8_t> bin);

// Godot 3's glTF importer keeps only [A-Za-z0-9_ ] of a bone's name and refuses the whole file
// when a name is left empty: Elden Ring FLVERs name some helper bones in Japanese only (c4361:
// 肩位置/角度参照). Renames every node whose name has no ASCII letter or digit to
// "node<index>_<game name>" (Blender shows the game's name after the prefix) and keeps the game's
// name in extras.game_name; returns how many. A finishing step: call it after every lookup by
// name (clips, bake) is done. drape convert calls it; `drape model` and `drape animation` do not
// yet (`drape animation --model` matches the model's nodes by name).
size_t prefix_latin_less_node_names(nlohmann::json& doc);

class GltfDocument {
public:
    GltfDocument();

    nlohmann::json& json() { return m_json; }
    const nlohmann::json& json() const { return m_json; }
    const std::vector<uint8_t>& bin() const { return m_bin; }

    // Appends bytes to the one buffer (4-byte aligned) as a new bufferView; returns its index.
    // target 0 = none.
    int add_view(const void* bytes, size_t size, int target = 0, const std::string& name = {});
    // A bufferView written piecewise, straight into the buffer (the clip builder: every clip's
    // keys in one view, tens of megabytes that a separate vector then made add_view copy once
    // more). begin_view() pads the buffer to 4 bytes and returns the view's offset in it;
    // append_to_view() adds bytes; end_view() makes the bufferView over everything appended since
    // begin_view() and returns its index (the next index of "bufferViews", known in advance).
    // While a view is open, add_view, add_accessor, add_png_image and a second begin_view throw
    // std::logic_error, as do append_to_view and end_view when none is open.
    size_t begin_view();
    void append_to_view(const void* bytes, size_t size);
    int end_view(int target = 0, const std::string& name = {});
    // An accessor over a new bufferView. `type` is "SCALAR", "VEC2", "VEC3", "VEC4" or "MAT4";
    // `min_max` writes min/max (required for POSITION and animation inputs).
    int add_accessor(std::span<const float> values, const char* type, int target = 0, bool min_max = false);
    int add_accessor(std::span<const uint16_t> values, const char* type, int target = 0);
    int add_accessor(std::span<const uint32_t> values, const char* type, int target = 0);
    // A PNG embedded in the buffer; returns the image index.
    int add_png_image(const std::string& name, std::span<const uint8_t> png);

    // Bulk elements as JSON text (the clip builder: tens of thousands of accessors, samplers and
    // channels, which as nlohmann objects made building, dumping and freeing the tree half of
    // `drape convert`'s glTF time). `element` is one complete JSON value, written as given after
    // the tree's own elements of that array; returns its index in the array. Once an array has
    // text elements, add_accessor/add_view (for "accessors") append as text too, and the tree's
    // own array must not grow directly (json()["accessors"].push_back): glb() and write_glb()
    // throw std::logic_error when it did. json() does not show text elements; from_glb of the
    // written bytes does.
    int append_accessor_text(std::string_view element);
    int append_animation_text(std::string_view element);
    size_t accessor_count() const;   // tree + text
    size_t animation_count() const;  // tree + text

    // Index of the node / mesh of that name, -1 when none (first match).
    int node_by_name(const std::string& name) const;
    int mesh_by_name(const std::string& name) const;
    // Morph targets on every primitive of mesh `mesh`: per target, POSITION displacements
    // (3 floats per vertex, the primitive's vertex count). Sets the mesh's default weights to 0.
    Result<void> add_morph_targets(int mesh, std::span<const std::vector<float>> position_deltas, std::span<const std::string> names = {});

    // The document as .glb bytes (JSON chunk + BIN chunk).
    std::vector<uint8_t> glb() const;
    // The same bytes written to `out` without assembling them in memory first (glb() holds the
    // buffer twice: ~35 MB more for a character with every clip). False when a write failed.
    bool write_glb(std::ostream& out) const;
    // The document as .gltf JSON text with the buffer stored in `bin_uri` (the caller writes bin()).
    std::string gltf_text(const std::string& bin_uri) const;

    // Reads a self-contained .glb (every buffer the GLB's own BIN chunk) into a document, so that
    // clips can be added to a model made elsewhere. Checked: chunk sizes, JSON object, buffer 0.
    static Result<GltfDocument> from_glb(Bytes data);

private:
    // Elements of a top-level array kept as text: `text` is the elements joined by commas; they
    // follow the first `tree_base` elements of the tree's array.
    struct TextTail {
        std::string text;
        size_t count = 0, tree_base = 0;
    };
    int append_text(const char* array, TextTail& tail, std::string_view element);
    int push_accessor(nlohmann::json accessor);
    std::string json_text(int indent, const std::string& uri) const;
    int add_accessor_bytes(const void* data, size_t bytes, size_t count, int component_type, const char* type, int target,
                           const float* min = nullptr, const float* max = nullptr);
    nlohmann::json m_json;
    std::vector<uint8_t> m_bin;
    static constexpr size_t k_no_open_view = size_t(-1);
    size_t m_open_view = k_no_open_view;  // offset of the view begin_view() opened
    void require_no_open_view(const char* what) const;
    TextTail m_text_accessors, m_text_animations;
};

}  // namespace drape::exporters
