/*
 * From count_distinct 4.0.0: the install script replaces every object in
 * place and adds the new ones (array_agg_distinct(anyarray)).
 */

-- @install script@
