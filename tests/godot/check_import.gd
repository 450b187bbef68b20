# Loads every imported model listed in cases.json and checks that it has the expected number of
# MeshInstance nodes and a Skeleton holding every bone name of the game. Prints
# "DRAPE_GODOT_OK <count>" when all pass; exits 1 otherwise.
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

func _collect(node, meshes, skeletons):
	if node is MeshInstance:
		meshes.append(node)
	if node is Skeleton:
		skeletons.append(node)
	for child in node.get_children():
		_collect(child, meshes, skeletons)

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
		_collect(scene, meshes, skeletons)
		var errors = []
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
