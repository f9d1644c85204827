# count_distinct: PGXS build
# $(srcdir) (set by PGXS) is "." here, or the source tree in a VPATH build
# (pg_buildext, for the Debian package: make -f SRC/Makefile VPATH=SRC in
# build-NN/): paths into the tree go through it
EXTENSION    = count_distinct
EXTVERSION   = $(shell grep default_version $(srcdir)/$(EXTENSION).control | sed -e "s/default_version[[:space:]]*=[[:space:]]*'\([^']*\)'/\1/")

MODULE_big   = count_distinct
OBJS         = $(patsubst $(srcdir)/%.c,%.o,$(wildcard $(srcdir)/src/*.c))
# the install script, and the update scripts, built from sql/update/: one
# per earlier version (UPDATE_FROM), from that version to this one
UPDATE_FROM  = 2.0.0 3.0.0 3.0.1 3.0.2 4.0.0 4.1.0 4.2.0
DATA_built   = $(foreach v,$(UPDATE_FROM),sql/$(EXTENSION)--$(v)--$(EXTVERSION).sql)
DATA         = $(filter-out $(DATA_built),$(patsubst $(srcdir)/%,%,$(wildcard $(srcdir)/sql/*--*.sql)))

TESTS        = $(wildcard $(srcdir)/test/sql/*.sql)
REGRESS      = $(patsubst $(srcdir)/test/sql/%.sql,%,$(TESTS))
REGRESS_OPTS = --inputdir=$(srcdir)/test --load-extension=$(EXTENSION)

# src/pg13: headers PostgreSQL 13 lacks (searched after the server's).
# Warnings are errors only where asked for (make CD_WERROR=1: the test
# scripts and CI), never in a user's or a package's build.
PG_CPPFLAGS  = $(if $(CD_WERROR),-Werror) -Wall -Wmissing-prototypes -idirafter $(srcdir)/src/pg13
EXTRA_CLEAN  = dist results regression.diffs regression.out

PG_CONFIG   ?= pg_config
PGXS        := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS does not track header dependencies: rebuild everything when one changes
$(OBJS): $(wildcard $(srcdir)/src/*.h)

# a VPATH build writes objects and update scripts into subdirectories
ifneq ($(abspath $(srcdir)),$(CURDIR))
$(shell mkdir -p src sql)
endif

# Update script FROM--EXTVERSION: the steps of sql/update/ (each
# A--B.sql brings version A to the next version B; 3.0.x--B.sql serves
# 3.0.0, 3.0.1 and 3.0.2) from FROM to EXTVERSION, in order
define update_rule
sql/$(EXTENSION)--$(1)--$(EXTVERSION).sql: $(wildcard $(srcdir)/sql/update/*--*.sql) $(srcdir)/sql/update/build.sh
	(cd $(srcdir) && $$(SHELL) sql/update/build.sh $(1) $(EXTVERSION)) >$$@.tmp || { rm -f $$@.tmp; exit 1; }
	mv $$@.tmp $$@
endef
$(foreach v,$(UPDATE_FROM),$(eval $(call update_rule,$(v))))

# PGXN distribution zip, built from the committed tree
dist:
	mkdir -p dist
	git archive --format zip --prefix=$(EXTENSION)-$(EXTVERSION)/ -o dist/$(EXTENSION)-$(EXTVERSION).zip HEAD

.PHONY: dist
