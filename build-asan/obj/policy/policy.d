build-asan/obj/policy/policy.o: policy/policy.c policy/policy.h
policy/policy.h:
