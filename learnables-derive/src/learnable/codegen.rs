//! The `Learnable` impl, generated from a checked model.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::LitStr;
use syn::ext::IdentExt;
use syn::spanned::Spanned;

use super::field::Field;
use super::model::Learnable;

/// The impl, inside a `const _` block that also holds the static spec.
///
/// Every generated function is `#[inline]`: rustc compiles a non-generic
/// `#[inline]` function only in a crate that calls it, so a crate that
/// derives a learnable and does not use it compiles no machine code for it
/// (as serde's generic impls), and callers in other crates can inline it.
pub fn generate(learnable: &Learnable) -> TokenStream {
    let krate = &learnable.krate;
    let ident = &learnable.ident;
    let spec = spec(learnable);
    let default_checks = learnable
        .lesson_fields()
        .map(|(_, field)| default_check(krate, field));
    let kind_checks = learnable
        .lesson_fields()
        .map(|(_, field)| kind_check(field));
    let fit_checks = learnable
        .lesson_fields()
        .map(|(_, field)| super::checks::fit_check(krate, field));
    let first_use_checks: Vec<TokenStream> = learnable
        .lesson_fields()
        .filter(|(_, field)| {
            field.lesson.as_ref().is_some_and(|lesson| lesson.default.is_some())
                && !super::check::is_standard(&field.value_ty)
        })
        .map(|(index, field)| {
            let parse = field.item("parse");
            let value_ty = &field.value_ty;
            let choices = field.item("choices");
            // A choice field's default is checked at compile time; the
            // constant condition keeps the check out of the build for it.
            quote! {
                if const { #choices.is_none() } {
                    #krate::__private::check_default::<#value_ty>(&SPEC, #index, #parse, ::core::stringify!(#ident));
                }
            }
        })
        .collect();
    // The defaults the derive could not parse, checked once, before the
    // descriptor is built.
    let (check_defaults, check_defaults_fn) = if first_use_checks.is_empty() {
        (TokenStream::new(), quote!(::core::option::Option::None))
    } else {
        (
            quote! {
                #[inline]
                fn __check_defaults() {
                    #(#first_use_checks)*
                }
            },
            quote!(::core::option::Option::Some(__check_defaults)),
        )
    };
    let (parse_fn, from_lesson_value) = from_lesson_value(learnable);
    let to_lesson_value = super::phrase::to_lesson_value(learnable);
    let describes = super::phrase::describes(learnable);
    let field_items = field_items(learnable);
    let field_refs = field_refs(learnable);
    quote! {
        #[allow(non_local_definitions, clippy::all)]
        const _: () = {
            use #krate::__private::TextField as _;

            #field_items

            #field_refs

            static SPEC: #krate::__private::DescriptorSpec = #spec;

            #parse_fn

            #(#default_checks)*
            #(#kind_checks)*
            #(#fit_checks)*

            #[automatically_derived]
            impl #krate::Learnable for #ident {
                #[inline]
                fn descriptor() -> &'static #krate::LearnableDescriptor {
                    static DESCRIPTOR: #krate::__private::DescriptorCell =
                        #krate::__private::DescriptorCell::new();
                    #check_defaults
                    DESCRIPTOR.get(&SPEC, #check_defaults_fn)
                }

                #from_lesson_value
                #to_lesson_value
                #describes
            }
        };
    }
}

impl Learnable {
    /// The fields that are lesson fields, with their index among them.
    pub(super) fn lesson_fields(&self) -> impl Iterator<Item = (usize, &Field)> {
        self.fields
            .iter()
            .filter(|field| field.lesson.is_some())
            .enumerate()
    }
}

fn option_lit(value: Option<&LitStr>) -> TokenStream {
    match value {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    }
}

/// `Type::FIELDS`: one typed reference per lesson field, so that code
/// naming a field (a teach block's suggestion) can only name one that
/// exists, with a value of its type.
fn field_refs(learnable: &Learnable) -> TokenStream {
    let krate = &learnable.krate;
    let ident = &learnable.ident;
    let holder = format_ident!("{}LessonFields", ident.unraw());
    let fields: Vec<_> = learnable
        .lesson_fields()
        .map(|(_, field)| {
            let name = &field.lesson.as_ref().expect("lesson fields only").name;
            (&field.ident, &field.ty, name)
        })
        .collect();
    let declarations = fields.iter().map(|(field, value_ty, _)| {
        let doc = format!("The lesson field `{}`.", field.unraw());
        quote!(#[doc = #doc] pub #field: #krate::FieldRef<#ident, #value_ty>,)
    });
    let values = fields
        .iter()
        .map(|(field, _, name)| quote!(#field: #krate::FieldRef::__from_derive(#name),));
    let struct_doc = format!(
        "The lesson fields of `{}`, one typed reference each.",
        ident.unraw()
    );
    let const_doc = format!(
        "The lesson fields of `{}`, for naming one in typed code (a teach block's suggestion).",
        ident.unraw()
    );
    quote! {
        #[doc = #struct_doc]
        #[allow(non_camel_case_types)]
        pub struct #holder {
            #(#declarations)*
        }

        #[automatically_derived]
        impl #ident {
            #[doc = #const_doc]
            pub const FIELDS: #holder = #holder { #(#values)* };
        }
    }
}

/// What the generated code needs of each lesson field's type, resolved
/// once per field: the type implements `FieldOf<Struct, index>` when it
/// derives `Choice` or implements `FromStr` and `Display`, and the field's
/// `__ops_{name}` constant holds what it gives.
///
/// A `Choice`'s kind and choices win over a text field's through `Probe`'s
/// inherent items, which only a concrete type selects: hence one impl per
/// field. Its `where` clause (higher-ranked, so that it is checked where the
/// items are used, not as a trivially false bound) makes a type that is
/// neither one error, `FieldOf`'s message at the field's type, through the
/// one constant every other use reads; no errors arise inside the impl,
/// which assumes its `where` clause.
fn field_items(learnable: &Learnable) -> TokenStream {
    let krate = &learnable.krate;
    let ident = &learnable.ident;
    let impls = learnable.lesson_fields().map(|(index, field)| {
        let value_ty = &field.value_ty;
        let ops = field.ops();
        // A boxed or shared `str` has no `FromStr`: its text ops are the
        // support's own, for the type the derive sees written.
        let bound = (!super::field_type::is_text_pointer(value_ty)).then(|| {
            quote_spanned! {value_ty.span()=>
                where
                    for<'__any> #value_ty: #krate::__private::FieldType,
            }
        });
        // Every other use of the field's type goes through `ops`: one
        // error for a type that is no lesson field's, not one per use.
        quote_spanned! {value_ty.span()=>
            #[diagnostic::do_not_recommend]
            impl #krate::__private::FieldOf<#ident, #index> for #value_ty
            #bound
            {
                const OPS: #krate::__private::FieldOps<#value_ty> =
                    #krate::__private::Probe::<#value_ty>::OPS;
            }

            #[allow(non_upper_case_globals)]
            const #ops: #krate::__private::FieldOps<#value_ty> =
                <#value_ty as #krate::__private::FieldOf<#ident, #index>>::OPS;
        }
    });
    quote!(#(#impls)*)
}

/// The constant holding what a lesson field needs of its type.
fn spec(learnable: &Learnable) -> TokenStream {
    let krate = &learnable.krate;
    let Learnable {
        collection,
        entry,
        teaches,
        how,
        decided_by,
        ..
    } = learnable;
    let review = learnable.review;
    let skills = match &learnable.skills {
        Some(skills) => quote!(::core::option::Option::Some(&[#(#skills),*])),
        None => quote!(::core::option::Option::None),
    };
    let fields = learnable.lesson_fields().map(|(_, field)| {
        let lesson = field.lesson.as_ref().expect("lesson fields only");
        let name = &lesson.name;
        let label = option_lit(lesson.label.as_ref());
        let help = option_lit(lesson.help.as_ref());
        let default = match &lesson.default {
            Some(default) => {
                let aliases = field.item("aliases");
                let choices = field.item("choices");
                quote! {
                    ::core::option::Option::Some(
                        #krate::__private::shown_default(#choices, #aliases, #default)
                    )
                }
            }
            None => quote!(::core::option::Option::None),
        };
        let doc = &lesson.doc;
        let entry_key = field.entry_key;
        let optional = field.optional;
        let list = field.list;
        let checks = &lesson.checks;
        let value_type = field.item("value_type");
        let bound = |explicit: Option<&crate::meta::BoundLit>, of_type: &str| match explicit {
            Some(bound) => {
                let bound = super::checks::bound_tokens(krate, bound);
                quote!(::core::option::Option::Some(#bound))
            }
            None => {
                let of_type = field.item(of_type);
                quote!(#krate::__private::Bound::whole(#of_type))
            }
        };
        let minimum = bound(checks.minimum.as_ref(), "least");
        let maximum = bound(checks.maximum.as_ref(), "most");
        let count = |count: Option<u64>| match count {
            Some(count) => quote!(::core::option::Option::Some(#count)),
            None => quote!(::core::option::Option::None),
        };
        let min_length = count(checks.min_length);
        let max_length = count(checks.max_length);
        let pattern = option_lit(checks.pattern.as_ref());
        let checked = checks.any();
        let choices = field.item("choices");
        let descriptions = field.item("descriptions");
        let kind = match &lesson.kind {
            Some(kind) => quote!(#krate::FieldKind::from_static(#kind)),
            None => {
                let kind = field.item("kind");
                quote!(#krate::FieldKind::from_static(#kind))
            }
        };
        quote! {
            #krate::__private::FieldSpec {
                name: #name,
                label: #label,
                help: #help,
                doc: &[#(#doc),*],
                kind: #kind,
                choices: #choices,
                descriptions: #descriptions,
                default: #default,
                entry_key: #entry_key,
                optional: #optional,
                list: #list,
                value_type: #value_type,
                minimum: #minimum,
                maximum: #maximum,
                min_length: #min_length,
                max_length: #max_length,
                pattern: #pattern,
                checked: #checked,
            }
        }
    });
    quote! {
        #krate::__private::DescriptorSpec {
            collection: #collection,
            entry: #entry,
            teaches: #teaches,
            how: #how,
            decided_by: #decided_by,
            skills: #skills,
            fields: &[#(#fields),*],
            review: #review,
        }
    }
}

/// A compile-time check that a choice field's `default` reads as one of
/// the choices of its type (which is defined elsewhere, so known only to
/// the compiler), as a lesson's value would: a trait bound, so that a
/// default outside the list is an error at the `default` attribute.
fn default_check(krate: &syn::Path, field: &Field) -> TokenStream {
    let lesson = field.lesson.as_ref().expect("lesson fields only");
    let Some(default) = &lesson.default else {
        return TokenStream::new();
    };
    let value_ty = &field.value_ty;
    let choices = field.item("choices");
    let aliases = field.item("aliases");
    let holds = quote! {
        { #krate::__private::choice_default(#choices, #aliases, #default).is_some() }
    };
    // The type, under a name at the `default`: where the error points.
    let alias = format_ident!(
        "__default_of_{}",
        field.ident.unraw(),
        span = default.span()
    );
    quote_spanned! {default.span()=>
        #[allow(non_camel_case_types)]
        type #alias = #value_ty;
        const _: () = <#alias as #krate::__private::DefaultIsAChoice<#holds>>::HOLDS;
    }
}

/// A compile-time check that a field's explicit `kind` agrees with whether
/// its type is a `Choice`: `kind = "choice"` needs one, any other kind
/// refuses one.
fn kind_check(field: &Field) -> TokenStream {
    let lesson = field.lesson.as_ref().expect("lesson fields only");
    let Some(kind) = &lesson.kind else {
        return TokenStream::new();
    };
    let value_ty = &field.value_ty;
    let choices = field.item("choices");
    let message = super::check::kind_message(
        &kind.value(),
        &quote!(#value_ty).to_string().replace(' ', ""),
        &lesson.name,
    )
    .replace('{', "{{")
    .replace('}', "}}");
    let wanted = kind.value() == "choice";
    quote_spanned! {kind.span()=>
        const _: () = if #choices.is_some() != #wanted {
            ::core::panic!(#message)
        };
    }
}

/// The lesson parser, a function beside the impl, and the trait methods
/// that call it.
fn from_lesson_value(learnable: &Learnable) -> (TokenStream, TokenStream) {
    let krate = &learnable.krate;
    let lesson_fields: Vec<(usize, &Field)> = learnable.lesson_fields().collect();
    let slot = |index: usize| format_ident!("__slot{}", index);
    let parse = |field: &Field| field.item("parse");
    let take = |field: &Field| field.item("take");
    let declarations = lesson_fields.iter().map(|(index, field)| {
        let slot = slot(*index);
        let ty = &field.ty;
        quote!(let mut #slot: #krate::__private::Slot<#ty> = #krate::__private::Slot::Absent;)
    });
    let arms = lesson_fields.iter().map(|(index, field)| {
        let slot = slot(*index);
        let lesson = field.lesson.as_ref().expect("lesson fields only");
        let name = &lesson.name;
        let aliases = &lesson.aliases;
        let parse = parse(field);
        let take = take(field);
        let stored_names = &lesson.stored_names;
        if field.list {
            // A list is read whole; an alias or stored name reads it too.
            let read = quote!(#slot = __reader.read_list(#index, __value, #parse));
            let stored = (!stored_names.is_empty())
                .then(|| quote!(#(#stored_names)|* if __stored => #read,));
            return quote! {
                #name #(| #aliases)* => #read,
                #stored
            };
        }
        if aliases.is_empty() && stored_names.is_empty() {
            quote!(#name => #slot = __reader.read(#index, __value, (#parse, #take)),)
        } else if stored_names.is_empty() {
            quote! {
                #name #(| #aliases)* => __reader.read_into(&mut #slot, #index, __key, __value, (#parse, #take)),
            }
        } else {
            // The name before `rename_all`: in stored versions only.
            quote! {
                #name #(| #aliases)* => __reader.read_into(&mut #slot, #index, __key, __value, (#parse, #take)),
                #(#stored_names)|* if __stored => __reader.read_into(&mut #slot, #index, __key, __value, (#parse, #take)),
            }
        }
    });
    let finals = lesson_fields.iter().map(|(index, field)| {
        let slot = slot(*index);
        let parse = parse(field);
        let optional = field.optional;
        if field.list {
            return quote!(let #slot = __reader.take_list(#index, #slot, #optional););
        }
        quote!(let #slot = __reader.take(#index, #slot, #parse, #optional);)
    });
    let required: Vec<_> = lesson_fields
        .iter()
        .filter(|(_, field)| !field.optional)
        .map(|(index, _)| slot(*index))
        .collect();
    let mut lesson_index = 0;
    let inits: Vec<TokenStream> = learnable.fields.iter().map(|field| {
        let ident = &field.ident;
        if field.lesson.is_none() {
            // A skipped field's value: its type's default, which the
            // compiler asks for at the type.
            if let Some(path) = &field.skip_default {
                return quote_spanned!(path.span()=> #ident: #path(),);
            }
            return quote_spanned!(field.value_ty.span()=> #ident: ::core::default::Default::default(),);
        }
        let slot = slot(lesson_index);
        lesson_index += 1;
        quote!(#ident: #slot,)
    }).collect();
    let key = lesson_fields.iter().find(|(_, field)| field.entry_key);
    let entry_param = key.map(|_| quote!(__entry: ::core::option::Option<&str>,));
    let key_check = key.map(|(index, field)| {
        let slot = slot(*index);
        let parse = parse(field);
        quote!(let #slot = __reader.entry_key(#index, #slot, __entry, #parse);)
    });
    let ident = &learnable.ident;
    let no_entry = key.map(|_| quote!(::core::option::Option::None,));
    // `__parse` reads the pairs, borrowed or owned; `__accept` adds the
    // type's `validate`, which needs the value as sent (for its refusals),
    // so a type with one reads an owned value as a borrowed one.
    let (accept_fn, accept) = match &learnable.validate {
        Some(path) => {
            // The binding is the derive's own (call-site hygiene, so that a
            // derive inside a `macro_rules!` finds it); its type is spanned
            // on the path, where a wrong signature is reported.
            let ty = quote_spanned! {path.span()=>
                fn(&#ident) -> ::core::result::Result<(), #krate::FieldErrors>
            };
            let check = quote!(let __validate: #ty = #path;);
            (
                quote! {
                    #[inline]
                    fn __accept(
                        __read: ::core::result::Result<#ident, #krate::LessonError>,
                        __lesson_value: &#krate::LessonValue,
                    ) -> ::core::result::Result<#ident, #krate::LessonError> {
                        #check
                        match __read {
                            ::core::result::Result::Ok(__read) => {
                                #krate::__private::validated(__read, __validate, &SPEC, __lesson_value)
                            }
                            ::core::result::Result::Err(__error) => ::core::result::Result::Err(__error),
                        }
                    }
                },
                true,
            )
        }
        None => (TokenStream::new(), false),
    };
    // The call of `__parse` on `__lesson_value`, borrowed, for `entry`.
    let borrowed = |entry: TokenStream, stored: bool| {
        let read = quote! {
            __parse(#krate::__private::entries(__lesson_value), #entry #stored)
        };
        if accept {
            quote!(__accept(#read, __lesson_value))
        } else {
            read
        }
    };
    let stored = match &learnable.migrate {
        Some(path) => {
            // As `__validate` above: the binding call-site, the type on the path.
            let ty = quote_spanned!(path.span()=> #krate::__private::MigrateFn);
            let migrate = quote!(let __migrate: #ty = #path;);
            let read = borrowed(no_entry.clone().unwrap_or_default(), true);
            quote! {
                #migrate
                #krate::__private::read_stored(
                    __lesson_value,
                    |__lesson_value| #read,
                    __migrate,
                )
            }
        }
        None => borrowed(no_entry.clone().unwrap_or_default(), true),
    };
    let from_value = borrowed(no_entry.clone().unwrap_or_default(), false);
    let from_entry = key.map(|_| {
        let read = borrowed(quote!(::core::option::Option::Some(__entry),), false);
        quote! {
            #[inline]
            fn from_lesson_entry(
                __entry: &str,
                __lesson_value: &#krate::LessonValue,
            ) -> ::core::result::Result<Self, #krate::LessonError> {
                #read
            }
        }
    });
    // An owned value is read owned only without `validate` (see above).
    let from_owned = (!accept).then(|| {
        quote! {
            #[inline]
            fn from_owned_lesson_value(
                __lesson_value: #krate::LessonValue,
            ) -> ::core::result::Result<Self, #krate::LessonError> {
                __parse(#krate::__private::owned_entries(__lesson_value), #no_entry false)
            }
        }
    });
    // A learnable with checked fields reads against its descriptor.
    let reader = if lesson_fields.iter().any(|(_, field)| {
        field
            .lesson
            .as_ref()
            .is_some_and(|lesson| lesson.checks.any())
    }) {
        quote! {
            #krate::__private::Reader::checked(&SPEC, <#ident as #krate::Learnable>::descriptor())
        }
    } else {
        quote!(#krate::__private::Reader::new(&SPEC))
    };
    let parse_fn = quote! {
        #[inline]
        fn __parse<__K: ::core::convert::AsRef<str>, __V: #krate::__private::Sent>(
            __pairs: impl ::core::iter::Iterator<Item = (__K, __V)>,
            #entry_param
            __stored: bool,
        ) -> ::core::result::Result<#ident, #krate::LessonError> {
            let mut __reader = #reader;
            #(#declarations)*
            for (__sent_key, __value) in __pairs {
                let __key: &str = ::core::convert::AsRef::<str>::as_ref(&__sent_key);
                match __key {
                    #(#arms)*
                    // A key the type no longer has: a stored version
                    // keeps it, a lesson is refused for it.
                    _ if __stored => {}
                    _ => __reader.unknown(__key),
                }
            }
            #key_check
            #(#finals)*
            match (#(#required,)*) {
                (#(::core::option::Option::Some(#required),)*) if __reader.is_clean() => {
                    ::core::result::Result::Ok(#ident { #(#inits)* })
                }
                _ => ::core::result::Result::Err(__reader.into_error()),
            }
        }

        #accept_fn
    };
    let methods = quote! {
        #[inline]
        fn from_lesson_value(
            __lesson_value: &#krate::LessonValue,
        ) -> ::core::result::Result<Self, #krate::LessonError> {
            #from_value
        }
        #from_entry
        #from_owned
        #[inline]
        fn from_stored_value(
            __lesson_value: &#krate::LessonValue,
        ) -> ::core::result::Result<Self, #krate::LessonError> {
            #stored
        }
    };
    (parse_fn, methods)
}
