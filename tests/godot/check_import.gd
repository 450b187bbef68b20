# Loads every imported model listed in cases.json and checks it by the case's "mode":
#   "import" (the default): the expected number of MeshInstance nodes, each with a skin, and one
#       Skeleton holding every bone name of the game ("meshes", "bones");
#   "bake": a baked cloth ("animation", "blend_shapes" per cloth mesh, "shape_meshes" meshes that
#       have them): the shapes move a vertex by "min_shape_offset" m (default 0.001) or more from
#       the base mesh, the AnimationPlayer has the clip with one blend-shape track per shape and mesh,
#       the clip kept its bone tracks, and each bone of "driven_bones" has a transform track;
#   "open": the file imports and instances ("meshes": how many MeshInstance nodes, 0 allowed).
# Prints "DRAPE_GODOT_OK <count>" when all pass; exits 1 otherwise. Run by tests/gltf_test.cpp
# and tests/bake_test.cpp after `godot3-server -e --quit` imported the files.
#
# Godot 3.2's glTF importer renames every bone (EditorSceneImporterGLTF::_sanitize_bone_name:
# camelcase_to_underscore(true), characters other than [a-zA-Z0-9_ ] removed, spaces and runs of
# '_' collapsed to one '_', leading zeros of digit runs dropped). The check applies the same
# rewrite to the game's names before looking them up; docs/model-export.md explains it.
extends SceneTree

func _is_upper(c):
	return c >= "A" and c <= "Z"

func _is_lower(c):
	return c >= "a" and c <= "z"

func _is_digit(c):
	return c >= "0" and c <= "9"

# String::camelcase_to_underscore(true) of Godot 3.2 (core/ustring.cpp), rewritten in GDScript.
func _camel_to_underscore(s):
	var out = ""
	var start = 0
	var n = s.length()
	for i in range(1, n):
		var c = s[i]
		var p = s[i - 1]
		var is_upper = _is_upper(c)
		var is_number = _is_digit(c)
		var was_upper = _is_upper(p)
		var was_number = _is_digit(p)
		var next2_lower = i + 2 < n and _is_lower(s[i + 1]) and _is_lower(s[i + 2])
		var next_lower = i + 1 < n and _is_lower(s[i + 1])
		var next_number = i + 1 < n and _is_digit(s[i + 1])
		var cond_a = is_upper and not was_upper and not was_number
		var cond_b = was_upper and is_upper and next2_lower
		var cond_c = is_number and not was_number
		var cond_d = is_number and not was_number and next_lower
		var cond_e = (not is_number) and was_number and (next_lower or next_number)
		if cond_a or cond_b or cond_c or cond_d or cond_e:
			out += s.substr(start, i - start) + "_"
			start = i
	out += s.substr(start, n - start)
	return out.to_lower()

func _sub(pattern, subject, replacement):
	var re = RegEx.new()
	re.compile(pattern)
	return re.sub(subject, replacement, true)

func _godot_bone_name(name):
	var p = _camel_to_underscore(name)
	p = _sub("([^a-zA-Z0-9_ ])+", p, "")
	p = _sub(" +", p, "_")
	p = _sub("_+", p, "_")
	p = _sub("0+(\\d+)", p, "$1")
	return p

func _collect(node, meshes, skeletons, players):
	if node is MeshInstance:
		meshes.append(node)
	if node is Skeleton:
		skeletons.append(node)
	if node is AnimationPlayer:
		players.append(node)
	for child in node.get_children():
		_collect(child, meshes, skeletons, players)

func _check_import(c, meshes, skeletons, errors):
	if meshes.size() != int(c["meshes"]):
		errors.append("meshes %d, expected %d" % [meshes.size(), int(c["meshes"])])
	if skeletons.size() != 1:
		errors.append("skeletons %d, expected 1" % skeletons.size())
	else:
		var sk = skeletons[0]
		var names = {}
		for i in range(sk.get_bone_count()):
			names[sk.get_bone_name(i)] = true
		if sk.get_bone_count() != c["bones"].size():
			errors.append("Skeleton has %d bones, expected %d" % [sk.get_bone_count(), c["bones"].size()])
		var missing = []
		for b in c["bones"]:
			if not names.has(_godot_bone_name(b)):
				missing.append(b + " (as " + _godot_bone_name(b) + ")")
		if missing.size() > 0:
			errors.append("%d bones missing from the Skeleton, first: %s" % [missing.size(), missing[0]])
		for m in meshes:
			if m.get_skin() == null:
				errors.append("mesh %s has no skin" % m.name)

func _check_bake(c, meshes, players, errors):
	var want = int(c["blend_shapes"])
	var shaped = 0
	for m in meshes:
		if m.mesh != null and m.mesh.get_blend_shape_count() > 0:
			if m.mesh.get_blend_shape_count() != want:
				errors.append("mesh %s has %d blend shapes, expected %d" % [m.name, m.mesh.get_blend_shape_count(), want])
			shaped += 1
			# The shapes hold the motion (an importer that cannot read a target leaves it flat):
			# the largest distance of a shape's vertex from the base mesh's.
			var base = m.mesh.surface_get_arrays(0)[Mesh.ARRAY_VERTEX]
			var far = 0.0
			for shape in m.mesh.surface_get_blend_shape_arrays(0):
				var v = shape[Mesh.ARRAY_VERTEX]
				if v == null or v.size() != base.size():
					continue
				for i in range(v.size()):
					far = max(far, v[i].distance_to(base[i]))
			if far < float(c.get("min_shape_offset", 0.001)):
				errors.append("mesh %s: its blend shapes move no vertex by %f m or more (largest %f)" % [m.name, float(c.get("min_shape_offset", 0.001)), far])
	if shaped != int(c["shape_meshes"]):
		errors.append("meshes with blend shapes %d, expected %d" % [shaped, int(c["shape_meshes"])])
	if players.size() != 1:
		errors.append("animation players %d, expected 1" % players.size())
		return
	var anim = players[0].get_animation(c["animation"])
	if anim == null:
		errors.append("no animation %s: %s" % [c["animation"], players[0].get_animation_list()])
		return
	var tracks = 0
	var transforms = 0
	var bone_tracks = {}
	for t in range(anim.get_track_count()):
		var p = str(anim.track_get_path(t))
		if p.find("blend_shapes/") >= 0:
			tracks += 1
		if anim.track_get_type(t) == Animation.TYPE_TRANSFORM:
			transforms += 1
			var parts = p.split(":")
			if parts.size() > 1:
				bone_tracks[parts[1]] = true
	if tracks != want * int(c["shape_meshes"]):
		errors.append("blend-shape tracks %d, expected %d" % [tracks, want * int(c["shape_meshes"])])
	if transforms == 0:
		errors.append("the clip lost its bone tracks")
	for b in c.get("driven_bones", []):
		if not bone_tracks.has(_godot_bone_name(b)):
			errors.append("no transform track for the driven bone %s (as %s)" % [b, _godot_bone_name(b)])

func _init():
	var f = File.new()
	if f.open("res://cases.json", File.READ) != OK:
		print("DRAPE_GODOT_FAIL cannot read cases.json")
		quit(1)
		return
	var cases = JSON.parse(f.get_as_text()).result
	f.close()
	var ok = 0
	var failed = false
	for c in cases:
		var res = load(c["file"])
		if res == null:
			print("DRAPE_GODOT_FAIL ", c["file"], ": not imported")
			failed = true
			continue
		var scene = res.instance()
		var meshes = []
		var skeletons = []
		var players = []
		_collect(scene, meshes, skeletons, players)
		var errors = []
		var mode = c.get("mode", "import")
		if mode == "import":
			_check_import(c, meshes, skeletons, errors)
		elif mode == "bake":
			_check_bake(c, meshes, players, errors)
		elif mode == "open":
			if meshes.size() != int(c["meshes"]):
				errors.append("meshes %d, expected %d" % [meshes.size(), int(c["meshes"])])
		else:
			errors.append("unknown mode " + str(mode))
		if errors.size() > 0:
			print("DRAPE_GODOT_FAIL ", c["file"], ": ", errors)
			failed = true
		else:
			ok += 1
		scene.free()
	if failed:
		quit(1)
	else:
		print("DRAPE_GODOT_OK ", ok)
		quit(0)
