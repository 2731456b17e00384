// expect-error: constraints not satisfied|does not satisfy|is_member_object_pointer
// Must not compile: a field descriptor carries a member object pointer; `42` is not one, so the
// Field template's constraint rejects the descriptor where it is named.
#include "pypto/reflect/field.hpp"

using NotAField = pypto::reflect::UsualField<42, "x">;
NotAField::owner* not_a_field = nullptr;
